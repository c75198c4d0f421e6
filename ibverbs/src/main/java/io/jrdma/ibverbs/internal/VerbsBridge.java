package io.jrdma.ibverbs.internal;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.CompletionChannel;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.MemoryWindow;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpAttributes;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ThreadConfinement;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * What jrdma's connection manager needs of the verbs API beyond its public surface: contexts that librdmacm opened,
 * queue pairs that librdmacm creates, and native pointers. Exported to {@code io.jrdma.rdmacm} only. The test
 * provider (fake native objects in plain memory, for measuring the binding's own cost) wraps its objects here too.
 */
public final class VerbsBridge {
    private static volatile Hooks hooks;

    private VerbsBridge() {
    }

    /** Implemented inside {@code io.jrdma.ibverbs}, where the constructors are. */
    public interface Hooks {
        /**
         * The context for a {@code struct ibv_context *} that librdmacm opened: one per native context, never closed
         * natively by jrdma (librdmacm keeps it for the life of the process).
         */
        Context adopt(MemorySegment verbs);

        /** Creates a queue pair as {@code builder} describes it, through {@code creator}, as a child of {@code owner}. */
        QueuePair createQueuePair(QueuePair.Builder builder, QpCreator creator, ResourceGuard owner)
                throws RdmaException;

        /** An address handle from a native {@code struct ibv_ah_attr}. */
        AddressHandle createAddressHandle(ProtectionDomain pd, MemorySegment ahAttr) throws RdmaException;

        MemorySegment pointer(ProtectionDomain pd);

        /**
         * The attributes of a filled {@code struct ibv_qp_attr} that {@code mask} ({@code IBV_QP_*} bits) names, for
         * {@link QueuePair#modify}.
         */
        QpAttributes qpAttributes(MemorySegment attr, int mask);

        // Objects that something other than libibverbs made and will free: closing them releases the Java side only.

        /** The protection domain over {@code struct ibv_pd *pd}, whose context is {@code context}'s. */
        ProtectionDomain adoptProtectionDomain(Context context, MemorySegment pd);

        /** The region over {@code struct ibv_mr *mr} registering {@code memory} with {@code access}. */
        MemoryRegion adoptMemoryRegion(ProtectionDomain pd, MemorySegment mr, MemorySegment memory,
                                       Set<Access> access);

        /** The completion channel over {@code struct ibv_comp_channel *channel}. */
        CompletionChannel adoptCompletionChannel(Context context, MemorySegment channel);

        /**
         * The completion queue over {@code struct ibv_cq *cq}, reporting to {@code channel} (or none), usable as
         * {@code confinement} says.
         */
        CompletionQueue adoptCompletionQueue(Context context, CompletionChannel channel, MemorySegment cq,
                                             ThreadConfinement confinement);

        MemorySegment pointer(QueuePair qp);

        /**
         * A LOCAL_INV of type 2 window {@code window}'s current rkey completed successfully: it reaches its region
         * no more, which may then be freed without closing the window first. Only for a completion the caller saw.
         */
        void windowInvalidated(MemoryWindow window);
    }

    /** Creates and destroys a queue pair's native object when something else than {@code ibv_create_qp} must. */
    public interface QpCreator {
        /**
         * Creates the queue pair from a filled {@code struct ibv_qp_init_attr_ex} (whose leading part is the classic
         * {@code struct ibv_qp_init_attr}); {@code extended}: the extended fields are set and must be honoured.
         */
        MemorySegment create(MemorySegment pd, MemorySegment initAttr, boolean extended) throws RdmaException;

        void destroy(MemorySegment qp) throws RdmaException;
    }

    public static void install(Hooks h) {
        hooks = h;
    }

    public static Hooks hooks() {
        if (hooks == null) {
            try {
                Class.forName("io.jrdma.ibverbs.BridgeHooks", true, VerbsBridge.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
        }
        return hooks;
    }
}
