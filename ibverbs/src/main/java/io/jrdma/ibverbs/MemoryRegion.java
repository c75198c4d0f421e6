package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_mr;
import io.jrdma.bindings.ibverbs.ibv_sge;
import io.jrdma.bindings.ibverbs.verbs_context;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.DataPath;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Registered memory ({@code struct ibv_mr}): a native segment the device may read and write, named by its local
 * key in work requests and by its remote key to peers.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.MemorySnippets region=register}
 */
@SuppressWarnings("restricted")
public final class MemoryRegion implements AutoCloseable {
    private static final MethodHandle REG_MR = Errno.capturing(
            ibverbs_h.ibv_reg_mr$address(), ibverbs_h.ibv_reg_mr$descriptor());
    private static final MethodHandle REG_MR_IOVA2 = Errno.capturing(
            ibverbs_h.ibv_reg_mr_iova2$address(), ibverbs_h.ibv_reg_mr_iova2$descriptor());
    private static final MethodHandle REREG_MR = Errno.capturing(
            ibverbs_h.ibv_rereg_mr$address(), ibverbs_h.ibv_rereg_mr$descriptor());
    private static final MethodHandle REG_DMABUF_MR = Errno.capturing(
            ibverbs_h.ibv_reg_dmabuf_mr$address(), ibverbs_h.ibv_reg_dmabuf_mr$descriptor());
    private static final System.Logger LOG = System.getLogger(MemoryRegion.class.getName());

    final ResourceGuard guard;
    private final ProtectionDomain pd;
    /** The registered memory, or null for a dma-buf region, which has no mapping in this process. */
    private final MemorySegment segment;
    private final long address;
    private final long length;
    private final Arena ownedArena;
    private volatile Set<Access> access;
    private final MemorySegment mr;
    private volatile int lkey;
    private volatile int rkey;
    /** Made and freed by someone else (see {@link #adopt}): never deregistered natively. */
    private final boolean adopted;
    /** The windows whose latest bind names this region: they must go before its memory does. */
    private final Set<MemoryWindow> boundWindows = ConcurrentHashMap.newKeySet();
    /**
     * Set once the registration is gone: a leaked region is deregistered by whichever comes first, its cleaner or its
     * arena's close, which then holds this, not the region.
     */
    private final AtomicBoolean deregistered = new AtomicBoolean();

    MemoryRegion(ProtectionDomain pd, MemorySegment segment, Arena arena, EnumSet<Access> access, boolean owned)
            throws RdmaException {
        this.guard = new ResourceGuard(this,
                ResourceGuard.Lifecycle.of(this::destroy, () -> { }, this::releaseIfLeaked));
        int mask = Access.maskOf(access);
        boolean optional = access.stream().anyMatch(Access::optional);
        // verbs.h's ibv_reg_mr macro: optional access bits only pass through ibv_reg_mr_iova2.
        MemorySegment result = optional
                ? Verbs.pointer("ibv_reg_mr_iova2", REG_MR_IOVA2, pd.segment(), segment, segment.byteSize(),
                        segment.address(), mask)
                : Verbs.pointer("ibv_reg_mr", REG_MR, pd.segment(), segment, segment.byteSize(), mask);
        this.pd = pd;
        this.segment = segment;
        this.address = segment.address();
        this.length = segment.byteSize();
        this.ownedArena = owned ? arena : null;
        this.access = Collections.unmodifiableSet(access);
        this.mr = result.reinterpret(ibv_mr.sizeof());
        this.lkey = ibv_mr.lkey(mr);
        this.rkey = ibv_mr.rkey(mr);
        this.adopted = false;
        if (!owned) {
            // Runs when the memory's arena closes, before the memory is freed (cleanups run last-added first). The
            // arena holds the region weakly: else an automatic arena would keep it, and its context, forever.
            WeakReference<MemoryRegion> region = new WeakReference<>(this);
            Runnable leaked = deregisterOnce(mr, deregistered, null);
            MemorySegment.NULL.reinterpret(arena, ignored -> {
                MemoryRegion r = region.get();
                if (r != null) {
                    r.deregisterOnArenaClose();
                } else {
                    leaked.run();
                }
            });
        }
    }

    /** A region over {@code [offset, offset + length)} of the dma-buf behind {@code fd}, addressed from {@code iova}. */
    MemoryRegion(ProtectionDomain pd, int fd, long offset, long length, long iova, EnumSet<Access> access)
            throws RdmaException {
        this.guard = new ResourceGuard(this,
                ResourceGuard.Lifecycle.of(this::destroy, () -> { }, this::releaseIfLeaked));
        MemorySegment result;
        try {
            result = Verbs.pointer("ibv_reg_dmabuf_mr", REG_DMABUF_MR, pd.segment(), offset, length, iova, fd,
                    Access.maskOf(access));
        } catch (RdmaException e) {
            if (e.errno() == Errno.EOPNOTSUPP) {
                throw new RdmaUnsupportedException("ibv_reg_dmabuf_mr",
                        pd.context().device().name() + " cannot register dma-buf memory");
            }
            throw e;
        }
        this.pd = pd;
        this.segment = null;
        this.address = iova;
        this.length = length;
        this.ownedArena = null;
        this.access = Collections.unmodifiableSet(access);
        this.mr = result.reinterpret(ibv_mr.sizeof());
        this.lkey = ibv_mr.lkey(mr);
        this.rkey = ibv_mr.rkey(mr);
        this.adopted = false;
    }

    private MemoryRegion(ProtectionDomain pd, MemorySegment mr, MemorySegment memory, EnumSet<Access> access) {
        this.guard = new ResourceGuard(this,
                ResourceGuard.Lifecycle.of(this::destroy, () -> { }, this::releaseIfLeaked));
        this.pd = pd;
        this.segment = memory;
        this.address = memory.address();
        this.length = memory.byteSize();
        this.ownedArena = null;
        this.access = Collections.unmodifiableSet(access);
        this.mr = mr.reinterpret(ibv_mr.sizeof());
        this.lkey = ibv_mr.lkey(this.mr);
        this.rkey = ibv_mr.rkey(this.mr);
        this.adopted = true;
    }

    /**
     * The region {@code mr} over {@code memory}, which something other than libibverbs registered and will
     * deregister.
     */
    static MemoryRegion adopt(ProtectionDomain pd, MemorySegment mr, MemorySegment memory, Set<Access> access) {
        EnumSet<Access> set = Access.setOf(access.toArray(Access[]::new));
        return ResourceGuard.create(() -> new MemoryRegion(pd, mr, memory, set), region -> region.guard, pd.guard);
    }

    /**
     * The arena is about to free the memory, whatever happens here: so first the windows bound to the region are
     * closed (their rkeys would still let peers reach the memory; rxe also refuses to deregister under them), then
     * the region is deregistered.
     */
    private void deregisterOnArenaClose() {
        try {
            for (MemoryWindow w : boundWindows.toArray(MemoryWindow[]::new)) {
                LOG.log(System.Logger.Level.WARNING, "closing " + w + ": it was bound to " + this
                        + ", whose memory's arena is closing");
                w.close();
            }
            close();
        } catch (RdmaException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "could not deregister " + this + " when its memory's arena closed", e);
        }
    }

    /**
     * The registered memory. Closed together with its arena.
     *
     * @return the segment that was registered (or allocated for the region)
     * @throws IllegalStateException for a dma-buf region: its memory is not mapped in this process
     */
    public MemorySegment segment() {
        if (segment == null) {
            throw new IllegalStateException(this + " is dma-buf memory, not mapped in this process");
        }
        return segment;
    }

    /**
     * The start address of the region, as a peer addresses it in RDMA operations.
     *
     * @return the virtual address of the first byte (the iova for a dma-buf region)
     */
    public long address() {
        return address;
    }

    /** Whether the region's memory is mapped in this process (not dma-buf memory, known only by its IOVA). */
    boolean isMapped() {
        return segment != null;
    }

    /**
     * The length of the region in bytes.
     *
     * @return the length in bytes
     */
    public long length() {
        return length;
    }

    /**
     * The local key, for scatter/gather entries.
     *
     * @return the lkey; it may change with {@link #changeAccess}
     * @throws IllegalStateException if the region is closed
     */
    public int localKey() {
        guard.checkOpen();
        return lkey;
    }

    /**
     * The remote key a peer uses to read, write or do atomics on this region.
     *
     * @return the rkey; it may change with {@link #changeAccess}
     * @throws IllegalStateException if the region is closed
     */
    public int remoteKey() {
        guard.checkOpen();
        return rkey;
    }

    /**
     * The access rights it was registered with.
     *
     * @return an unmodifiable set of the current rights
     */
    public Set<Access> access() {
        return access;
    }

    /**
     * The protection domain it belongs to.
     *
     * @return the protection domain it was registered in
     */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * Re-registers the region with new access rights ({@code ibv_rereg_mr} with
     * {@code IBV_REREG_MR_CHANGE_ACCESS}); its keys may change, so read them again and re-advertise.
     *
     * @param newAccess the new rights, replacing the old ones
     * @throws RdmaException            if {@code ibv_rereg_mr} fails
     * @throws IllegalArgumentException if the rights are inconsistent or include an optional flag
     *     ({@link Access#RELAXED_ORDERING})
     * @throws IllegalStateException    if the region is closed
     */
    public void changeAccess(Access... newAccess) throws RdmaException {
        guard.checkOpen();
        EnumSet<Access> set = Access.setOf(newAccess);
        int mask = Access.maskOf(set);
        if (set.stream().anyMatch(Access::optional)) {
            throw new IllegalArgumentException("optional access flags cannot be changed by re-registration: " + set);
        }
        synchronized (guard) {
            guard.checkOpen();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = Errno.allocateState(arena);
                int rc;
                try {
                    rc = (int) REREG_MR.invokeExact(state, mr, ibverbs_h.IBV_REREG_MR_CHANGE_ACCESS(),
                            MemorySegment.NULL, MemorySegment.NULL, 0L, mask);
                } catch (Throwable t) {
                    throw DataPath.rethrow(t);
                }
                if (rc != 0) {
                    // A negative IBV_REREG_MR_ERR_* code; errno says why. The region keeps its old registration
                    // unless the command itself failed (IBV_REREG_MR_ERR_CMD*), which errno then reports too.
                    throw Errno.exception("ibv_rereg_mr", Errno.read(state), "re-registering " + this + " with " + set);
                }
            }
            access = Collections.unmodifiableSet(set);
            lkey = ibv_mr.lkey(mr);
            rkey = ibv_mr.rkey(mr);
        }
    }

    /**
     * Advises the device about {@code [offset, offset + length)} of an on-demand-paging region
     * ({@code ibv_advise_mr}): e.g. prefetch its pages so the first access does not fault. {@code flush} waits until
     * the advice is carried out.
     *
     * @param advice what to do with the pages
     * @param flush  whether to wait until the advice is carried out
     * @param offset the first byte, from the start of the region
     * @param length the number of bytes, less than 4 GiB
     * @throws RdmaException with {@code EOPNOTSUPP} if the device has no on-demand paging
     */
    public void advise(Advice advice, boolean flush, long offset, long length) throws RdmaException {
        guard.enter();   // a concurrent close waits for this call
        try {
            checkRange(offset, length);
            if (length > 0xffff_ffffL) {
                throw new IllegalArgumentException("advice covers at most 4 GiB - 1 at once, not " + length + " bytes");
            }
            MemorySegment op = ExtendedOps.find(pd.context(), verbs_context.advise_mr$offset());
            int rc;
            if (op.equals(MemorySegment.NULL)) {
                rc = Errno.EOPNOTSUPP;
            } else {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment sge = ibv_sge.allocate(arena);
                    ibv_sge.addr(sge, address + offset);
                    ibv_sge.length(sge, (int) length);
                    ibv_sge.lkey(sge, lkey);
                    rc = verbs_context.advise_mr.invoke(op, pd.segment(), advice.value,
                            flush ? ibverbs_h.IBV_ADVISE_MR_FLAG_FLUSH() : 0, sge, 1);
                }
            }
            if (rc != 0) {
                throw Errno.exception("ibv_advise_mr", Math.abs(rc), rc == Errno.EOPNOTSUPP
                        ? pd.context().device().name() + " has no on-demand paging to advise" : "advising " + this);
            }
        } finally {
            guard.exit();
        }
    }

    /** What {@link #advise} asks of an on-demand-paging region ({@code IBV_ADVISE_MR_ADVICE_*}). */
    public enum Advice {
        /** Fault the pages in for reading. */
        PREFETCH(ibverbs_h.IBV_ADVISE_MR_ADVICE_PREFETCH()),
        /** Fault the pages in for writing. */
        PREFETCH_WRITE(ibverbs_h.IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE()),
        /** Map the pages that are already present, without faulting. */
        PREFETCH_NO_FAULT(ibverbs_h.IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT());

        private final int value;

        Advice(int value) {
            this.value = value;
        }
    }

    /** The native {@code struct ibv_mr *}. */
    void windowBound(MemoryWindow window) {
        boundWindows.add(window);
    }

    void windowUnbound(MemoryWindow window) {
        boundWindows.remove(window);
    }

    MemorySegment nativeRegion() {
        guard.checkOpen();
        return mr;
    }

    /** The region {@code [offset, offset + length)} of this memory, checked against its bounds. */
    void checkRange(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > this.length || offset + length < 0) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + (offset + length) + ") is outside "
                    + this);
        }
    }

    private Runnable releaseIfLeaked() {
        return adopted ? null : deregisterOnce(mr, deregistered, ownedArena);
    }

    /** Deregisters {@code mr} unless {@code done} says it is already, then frees {@code owned} memory (if any). */
    private static Runnable deregisterOnce(MemorySegment mr, AtomicBoolean done, Arena owned) {
        return () -> {
            if (done.compareAndSet(false, true)) {
                ibverbs_h.ibv_dereg_mr(mr);
            }
            if (owned != null) {
                owned.close();
            }
        };
    }

    private void destroy() throws RdmaException {
        if (!adopted) {
            Verbs.check("ibv_dereg_mr", ibverbs_h.ibv_dereg_mr(mr));
            deregistered.set(true);
        }
        if (ownedArena != null) {
            ownedArena.close();
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
        return "MemoryRegion[" + (segment == null ? "dma-buf, " : "") + "0x" + Long.toHexString(address) + ", "
                + length + " bytes, lkey 0x"
                + Integer.toHexString(lkey) + ", rkey 0x" + Integer.toHexString(rkey) + ", " + access + "]";
    }
}
