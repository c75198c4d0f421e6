package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.VerbsBridge;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/** The verbs side of {@link VerbsBridge}, installed when the bridge is first used. */
final class BridgeHooks implements VerbsBridge.Hooks {
    static {
        VerbsBridge.install(new BridgeHooks());
    }

    private BridgeHooks() {
    }

    @Override
    public void windowInvalidated(MemoryWindow window) {
        window.invalidated();
    }

    @Override
    public Context adopt(MemorySegment verbs) {
        return Context.adopt(verbs);
    }

    @Override
    public QueuePair createQueuePair(QueuePair.Builder builder, VerbsBridge.QpCreator creator, ResourceGuard owner)
            throws RdmaException {
        return builder.create(creator, owner);
    }

    @Override
    public AddressHandle createAddressHandle(ProtectionDomain pd, MemorySegment ahAttr) throws RdmaException {
        return AddressHandle.fromAttributes(pd, ahAttr);
    }

    @Override
    public MemorySegment pointer(ProtectionDomain pd) {
        return pd.segment();
    }

    @Override
    public QpAttributes qpAttributes(MemorySegment attr, int mask) {
        return QpAttributes.read(attr, mask);
    }

    @Override
    public ProtectionDomain adoptProtectionDomain(Context context, MemorySegment pd) {
        return ProtectionDomain.adopt(context, pd);
    }

    @Override
    public MemoryRegion adoptMemoryRegion(ProtectionDomain pd, MemorySegment mr, MemorySegment memory,
                                          Set<Access> access) {
        return MemoryRegion.adopt(pd, mr, memory, access);
    }

    @Override
    public CompletionChannel adoptCompletionChannel(Context context, MemorySegment channel) {
        return CompletionChannel.adopt(context, channel);
    }

    @Override
    public CompletionQueue adoptCompletionQueue(Context context, CompletionChannel channel, MemorySegment cq,
                                                ThreadConfinement confinement) {
        return CompletionQueue.adopt(context, channel, cq, confinement);
    }

    @Override
    public MemorySegment pointer(QueuePair qp) {
        return qp.segment();
    }
}
