package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_context;
import io.jrdma.bindings.ibverbs.ibv_context_ops;
import io.jrdma.bindings.ibverbs.ibv_mw;
import io.jrdma.bindings.ibverbs.ibv_mw_bind;
import io.jrdma.bindings.ibverbs.ibv_mw_bind_info;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

/**
 * A memory window ({@code struct ibv_mw}): narrow, revocable remote access to part of a memory region, under an
 * rkey of its own. Type 1 windows are bound with {@link #bind}; type 2 windows by a
 * {@link SendWorkRequest#bindWindow BIND_MW} work request on a queue pair, and revoked by LOCAL_INV or a peer's
 * SEND_WITH_INV.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.MemorySnippets region=window-type-1}
 *
 * <p>A type 2 window is bound, and revoked, by work requests:
 * {@snippet class=io.jrdma.ibverbs.snippets.MemorySnippets region=window-type-2}
 *
 * <p>On Soft-RoCE (rdma_rxe, vendor id {@code 0xffffff}) post a bind only when nothing else of the queue pair is in
 * flight: rxe executes a bind when it reaches it but retires it only once the requests before it are acknowledged,
 * and when one of those is retransmitted it executes the bind again, which fails ({@code MW_BIND_ERR}) or leaves
 * the queue pair without completions. jrdma-endpoint binds its windows that way.
 */
@SuppressWarnings("restricted")
public final class MemoryWindow implements AutoCloseable {
    /** The two kinds of memory window ({@code enum ibv_mw_type}). */
    public enum Type {
        /** Bound by {@code ibv_bind_mw}; the device chooses the new rkey. */
        TYPE_1(ibverbs_h.IBV_MW_TYPE_1()),
        /** Bound by a BIND_MW work request to one queue pair; the application chooses the rkey's low byte. */
        TYPE_2(ibverbs_h.IBV_MW_TYPE_2());

        private final int value;

        Type(int value) {
            this.value = value;
        }
    }

    final ResourceGuard guard;
    private final ProtectionDomain pd;
    private final Type type;
    private final MemorySegment mw;
    private final MemorySegment deallocFn;
    private volatile int rkey;
    /**
     * The region of the latest bind (type 2: posted), whose memory the rkey may reach until the window is unbound or
     * closed; a type 1 unbind rebinds to it with length 0. The region knows the window too (see
     * {@link MemoryRegion#windowBound}), so that its memory is never freed while a window still reaches it.
     */
    private volatile MemoryRegion boundRegion;

    private MemoryWindow(ProtectionDomain pd, Type type, MemorySegment mw) {
        this.guard = new ResourceGuard(this, ResourceGuard.Lifecycle.of(this::destroy, this::releaseIfLeaked));
        this.pd = pd;
        this.type = type;
        this.mw = mw.reinterpret(ibv_mw.sizeof());
        this.deallocFn = ibv_context_ops.dealloc_mw(ops(pd));
        this.rkey = ibv_mw.rkey(this.mw);
    }

    static MemoryWindow create(ProtectionDomain pd, Type type) throws RdmaException {
        MemorySegment allocFn = ibv_context_ops.alloc_mw(ops(pd));
        if (allocFn.equals(MemorySegment.NULL)) {
            throw new RdmaUnsupportedException("ibv_alloc_mw", pd.context().device().name() + " has no memory windows");
        }
        return ResourceGuard.create(() -> new MemoryWindow(pd, type, Verbs.pointer("ibv_alloc_mw",
                Errno.capturing(allocFn, ibv_context_ops.alloc_mw.descriptor()), pd.segment(), type.value)),
                mw -> mw.guard, pd.guard);
    }

    private static MemorySegment ops(ProtectionDomain pd) {
        return ibv_context.ops(pd.context().segment());
    }

    /**
     * The window's type, chosen at allocation.
     *
     * @return the type
     */
    public Type type() {
        return type;
    }

    /**
     * The rkey of the latest bind (for type 2: the latest bind posted); it changes with every bind.
     *
     * @return the current rkey
     * @throws IllegalStateException if the window is closed
     */
    public int remoteKey() {
        guard.checkOpen();
        return rkey;
    }

    /**
     * Binds this type 1 window to {@code [offset, offset + length)} of {@code mr} through {@code qp}
     * ({@code ibv_bind_mw}), giving peers {@code access} there, and returns the new rkey. The bind is a send-queue
     * operation: it completes (signaled) on the QP's send completion queue with {@code wr_id} 0.
     *
     * @param qp     a queue pair of the window's protection domain, in RTS
     * @param mr     a region of that protection domain registered with {@link Access#MW_BIND}
     * @param offset the first byte of the window, from the start of {@code mr}
     * @param length the window's length in bytes
     * @param access the rights peers get: remote read, write, atomic and {@link Access#ZERO_BASED} only
     * @return the new rkey, to advertise to the peer
     * @throws RdmaException            if {@code ibv_bind_mw} fails
     * @throws IllegalArgumentException if the objects are in another protection domain, the region lacks
     *     {@code MW_BIND}, the range is outside it or a right is not a remote one
     * @throws IllegalStateException    if this is a type 2 window, or the window is closed
     */
    public int bind(QueuePair qp, MemoryRegion mr, long offset, long length, Access... access) throws RdmaException {
        if (type != Type.TYPE_1) {
            throw new IllegalStateException("type 2 windows are bound by a BIND_MW work request");
        }
        if (mr.protectionDomain() != pd || qp.protectionDomain() != pd) {
            throw new IllegalArgumentException(mr + " and " + qp + " must be in this window's protection domain");
        }
        if (!mr.access().contains(Access.MW_BIND)) {
            throw new IllegalArgumentException("windows bind only to regions registered with MW_BIND: " + mr);
        }
        mr.checkRange(offset, length);
        int newRkey = bindType1(qp, mr, mr.address() + offset, length, windowAccess(access));
        boundTo(mr);
        return newRkey;
    }

    /**
     * Unbinds this type 1 window: its rkey grants nothing any more. Like {@link #bind}, it completes on the QP's
     * send completion queue; a window never bound has nothing to unbind.
     *
     * @param qp a queue pair of the window's protection domain, in RTS
     * @throws RdmaException         if {@code ibv_bind_mw} fails
     * @throws IllegalStateException if this is a type 2 window, or the window is closed
     */
    public void unbind(QueuePair qp) throws RdmaException {
        if (type != Type.TYPE_1) {
            throw new IllegalStateException("type 2 windows are invalidated by LOCAL_INV or SEND_WITH_INV");
        }
        if (boundRegion != null) {
            // A zero-length bind unbinds. The region stays named: providers (rxe) dereference it even then.
            MemoryRegion region = boundRegion;
            bindType1(qp, region, region.address(), 0, 0);
            region.windowUnbound(this);
            boundRegion = null;
        }
    }

    private int bindType1(QueuePair qp, MemoryRegion mr, long address, long length, int accessMask)
            throws RdmaException {
        qp.checkNotInOwnBatch();   // the provider binds through a post, under the lock that batch holds
        // The provider reads all three during the call: a concurrent close of any of them waits for it.
        ResourceGuard[] held = {guard, qp.guard, mr.guard};
        ResourceGuard.enterAll(held, held.length);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bind = ibv_mw_bind.allocate(arena);
            ibv_mw_bind.send_flags(bind, ibverbs_h.IBV_SEND_SIGNALED());
            MemorySegment info = ibv_mw_bind.bind_info(bind);
            ibv_mw_bind_info.mr(info, mr.nativeRegion());
            ibv_mw_bind_info.addr(info, address);
            ibv_mw_bind_info.length(info, length);
            ibv_mw_bind_info.mw_access_flags(info, accessMask);
            MemorySegment bindFn = ibv_context_ops.bind_mw(ops(pd));
            Verbs.check("ibv_bind_mw", ibv_context_ops.bind_mw.invoke(bindFn, qp.segment(), mw, bind));
            rkey = ibv_mw.rkey(mw);
            return rkey;
        } finally {
            ResourceGuard.exitAll(held, held.length);
        }
    }

    /**
     * The rkey the next type 2 bind should carry: {@code ibv_inc_rkey} of the current one.
     *
     * @return the current rkey with its low (key) byte incremented
     */
    public int nextRemoteKey() {
        int r = rkey;
        return (r & 0xffffff00) | ((r + 1) & 0xff);
    }

    /**
     * A type 2 bind was posted under {@code newRkey}. The provider reads {@code mw->rkey} to name the window in the
     * next bind or invalidate, and only the application knows the new key, so it is written back here.
     */
    void boundTo(int newRkey, MemoryRegion region) {
        ibv_mw.rkey(mw, newRkey);
        rkey = newRkey;
        boundTo(region);
    }

    /** A LOCAL_INV of the current rkey completed: the window reaches no region until its next bind. */
    void invalidated() {
        MemoryRegion region = boundRegion;
        boundRegion = null;
        if (region != null) {
            region.windowUnbound(this);
        }
    }

    private void boundTo(MemoryRegion region) {
        MemoryRegion before = boundRegion;
        if (before != region) {
            region.windowBound(this);
            boundRegion = region;
            if (before != null) {
                before.windowUnbound(this);
            }
        }
    }

    static int windowAccess(Access... access) {
        EnumSet<Access> set = Access.setOf(access);
        for (Access a : set) {
            if (a != Access.REMOTE_READ && a != Access.REMOTE_WRITE && a != Access.REMOTE_ATOMIC
                    && a != Access.ZERO_BASED) {
                throw new IllegalArgumentException("a window grants remote read, write, atomics (and zero-based), not "
                        + a);
            }
        }
        return set.stream().mapToInt(Access::mask).reduce(0, (x, y) -> x | y);
    }

    MemorySegment segment() {
        guard.checkOpen();
        return mw;
    }

    /**
     * The protection domain it was allocated in.
     *
     * @return the protection domain
     */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** Frees a leaked window; it must not refer to this object. */
    private Runnable releaseIfLeaked() {
        MemorySegment leaked = mw;
        MemorySegment dealloc = deallocFn;
        return () -> ibv_context_ops.dealloc_mw.invoke(dealloc, leaked);
    }

    private void destroy() throws RdmaException {
        Verbs.check("ibv_dealloc_mw", ibv_context_ops.dealloc_mw.invoke(deallocFn, mw));
        MemoryRegion region = boundRegion;
        if (region != null) {
            region.windowUnbound(this);
        }
    }

    /** {@return whether {@link #close()} has completed} */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /**
     * Releases the native object. A second call does nothing.
     *
     * @throws IllegalStateException if objects created from this one are still open (nothing is closed then)
     * @throws RdmaException         if the native destroy verb fails (it stays open)
     * @throws WrongThreadException  if it is confined to another thread (it stays open)
     */
    @Override
    public void close() throws RdmaException {
        guard.close();
    }

    @Override
    public String toString() {
        return "MemoryWindow[" + type + ", rkey 0x" + Integer.toHexString(rkey) + "]";
    }
}
