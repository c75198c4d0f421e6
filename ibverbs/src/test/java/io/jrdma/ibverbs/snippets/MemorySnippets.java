package io.jrdma.ibverbs.snippets;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.DeviceAttributesEx;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.MemoryWindow;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.SendWorkRequest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Protection domains, memory regions and windows. */
final class MemorySnippets {

    void protectionDomain(Context ctx) throws RdmaException {
        // @start region="protection-domain"
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE)) {
            mr.segment().setString(0, "hello");
        }   // the region closes first: a protection domain with open regions cannot close
        // @end
    }

    void register(ProtectionDomain pd, Peer peer) throws RdmaException {
        // @start region="register"
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(1 << 20, 4096);
            MemoryRegion mr = pd.register(buf, arena, Access.LOCAL_WRITE, Access.REMOTE_READ);
            peer.advertise(mr.address(), mr.remoteKey(), mr.length());
            // ... the peer reads it ...
        }   // closing the arena deregisters the region before the memory is freed
        // @end
    }

    void access(ProtectionDomain pd, MemorySegment segment, Arena arena) throws RdmaException {
        // @start region="access"
        // Peers may read the region; only this side's device writes it (receives, RDMA READ responses).
        MemoryRegion mr = pd.register(segment, arena, Access.LOCAL_WRITE, Access.REMOTE_READ);
        // @end
    }

    void onDemandPaging(Context ctx, ProtectionDomain pd, MemorySegment hugeMapping, Arena arena)
            throws RdmaException {
        // @start region="on-demand-paging"
        DeviceAttributesEx ex = ctx.queryDeviceEx();
        Access[] rights = ex.supportsOnDemandPaging()
                ? new Access[] {Access.LOCAL_WRITE, Access.ON_DEMAND}
                : new Access[] {Access.LOCAL_WRITE};
        MemoryRegion mr = pd.register(hugeMapping, arena, rights);
        // @end
    }

    void windowType1(ProtectionDomain pd, QueuePair qp) throws RdmaException {
        // @start region="window-type-1"
        MemoryRegion mr = pd.allocate(1 << 20, Access.LOCAL_WRITE, Access.MW_BIND);
        MemoryWindow mw = pd.allocateMemoryWindow(MemoryWindow.Type.TYPE_1);
        int rkey = mw.bind(qp, mr, 4096, 512, Access.REMOTE_READ);   // the peer may read these 512 bytes only
        // ... advertise rkey and mr.address() + 4096; the bind completes on qp's send completion queue ...
        mw.unbind(qp);                                              // and now nothing
        // @end
    }

    void windowType2(ProtectionDomain pd, QueuePair qp, MemoryRegion mr) throws RdmaException {
        // @start region="window-type-2"
        MemoryWindow mw = pd.allocateMemoryWindow(MemoryWindow.Type.TYPE_2);
        int rkey = mw.nextRemoteKey();
        SendWorkRequest wr = new SendWorkRequest(0);
        qp.postSend(wr.reset().id(1).signaled(true).bindWindow(mw, rkey, mr, 0, 4096, Access.REMOTE_WRITE));
        // ... once the bind completes, rkey grants the peer writes to the first 4 KiB; revoke it with
        qp.postSend(wr.reset().id(2).signaled(true).localInvalidate(rkey));
        // @end
    }

    /** Whatever carries region descriptors to the peer. */
    interface Peer {
        void advertise(long address, int rkey, long length);
    }
}
