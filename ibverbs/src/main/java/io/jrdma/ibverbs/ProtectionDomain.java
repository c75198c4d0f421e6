package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_pd;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.HugePages;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.Segments;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.EnumSet;
import java.util.function.Function;

/**
 * A protection domain ({@code struct ibv_pd}): memory regions and queue pairs of one PD can work together.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.MemorySnippets region=protection-domain}
 */
@SuppressWarnings("restricted")
public final class ProtectionDomain implements AutoCloseable {
    private static final MethodHandle ALLOC_PD = Errno.capturing(
            ibverbs_h.ibv_alloc_pd$address(), ibverbs_h.ibv_alloc_pd$descriptor());

    final ResourceGuard guard;
    private final Context context;
    private final MemorySegment pd;
    /** The kernel's handle, kept for messages: the native struct is freed when this closes. */
    private final int handle;
    /** Made and freed by someone else (see {@link #adopt}): never deallocated natively. */
    private final boolean adopted;

    ProtectionDomain(Context context) throws RdmaException {
        this(context, Verbs.pointer("ibv_alloc_pd", ALLOC_PD, context.segment()), false);
    }

    private ProtectionDomain(Context context, MemorySegment pd, boolean adopted) {
        this.guard = new ResourceGuard(this, ResourceGuard.Lifecycle.of(this::destroy, this::releaseIfLeaked));
        this.context = context;
        this.pd = pd.reinterpret(ibv_pd.sizeof());
        this.handle = ibv_pd.handle(this.pd);
        this.adopted = adopted;
    }

    /** The protection domain over {@code pd}, which something other than libibverbs allocated and will free. */
    static ProtectionDomain adopt(Context context, MemorySegment pd) {
        return ResourceGuard.create(() -> new ProtectionDomain(context, pd, true), p -> p.guard, context.guard);
    }

    /**
     * The context this PD belongs to.
     *
     * @return the context it was allocated from
     */
    public Context context() {
        return context;
    }

    /**
     * Registers {@code segment}, zero-copy, for the device ({@code ibv_reg_mr}, or {@code ibv_reg_mr_iova2} with
     * optional access flags). {@code owner} is the arena the segment was allocated from: when it closes, the
     * registration is removed first, so the device can never write to freed memory.
     *
     * @param segment the native memory to register
     * @param owner   the arena {@code segment} was allocated from
     * @param access  the rights of the region; none means local read only
     * @return the region, a child of this protection domain
     * @throws RdmaException            if {@code ibv_reg_mr} fails, e.g. {@code ENOMEM} past the locked-memory limit
     *                                  ({@code ulimit -l})
     * @throws UnsupportedOperationException if {@code ON_DEMAND} is asked of a device without on-demand paging
     * @throws IllegalStateException    if the protection domain is closed, or {@code owner} is (the memory is freed)
     * @throws WrongThreadException     if {@code owner} is a confined arena of another thread
     * @throws IllegalArgumentException for a heap segment, an empty segment, a segment not from {@code owner}, or
     *                                  REMOTE_WRITE/REMOTE_ATOMIC without LOCAL_WRITE
     */
    public MemoryRegion register(MemorySegment segment, Arena owner, Access... access) throws RdmaException {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("heap segments cannot be registered: the GC moves them; allocate the "
                    + "memory from an Arena (Arena.ofShared().allocate(...)) or map a file instead");
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException("cannot register an empty segment");
        }
        if (!owner.scope().equals(segment.scope())) {
            throw new IllegalArgumentException("the segment was not allocated from the given arena");
        }
        Segments.usable(segment, "the segment");
        EnumSet<Access> set = checkedAccess(access);
        return ResourceGuard.create(() -> new MemoryRegion(this, segment, owner, set, false), mr -> mr.guard, guard);
    }

    /**
     * Registers {@code [offset, offset + length)} of the dma-buf behind file descriptor {@code fd} (e.g. GPU memory)
     * for the device, which addresses it from {@code iova} ({@code ibv_reg_dmabuf_mr}). The caller keeps the file
     * descriptor open at least as long as the region. The region has no {@link MemoryRegion#segment()}.
     *
     * @param fd     the dma-buf file descriptor
     * @param offset where the region starts in the dma-buf, in bytes
     * @param length the region's length in bytes
     * @param iova   the address the device (and peers) use for the first byte
     * @param access the rights of the region
     * @return the region, a child of this protection domain
     * @throws IllegalArgumentException if {@code fd} or {@code offset} is negative or {@code length} is not positive
     * @throws RdmaException with {@code EOPNOTSUPP} and a clear message if the device cannot register dma-buf memory
     */
    public MemoryRegion registerDmaBuf(int fd, long offset, long length, long iova, Access... access)
            throws RdmaException {
        if (fd < 0) {
            throw new IllegalArgumentException("not a file descriptor: " + fd);
        }
        if (offset < 0 || length <= 0) {
            throw new IllegalArgumentException("dma-buf range needs offset >= 0 and length > 0, not offset " + offset
                    + ", length " + length);
        }
        EnumSet<Access> set = checkedAccess(access);
        return ResourceGuard.create(() -> new MemoryRegion(this, fd, offset, length, iova, set), mr -> mr.guard,
                guard);
    }

    /**
     * Allocates {@code size} bytes of page-aligned native memory and registers them; closing the region frees them.
     *
     * @param size   the number of bytes (the memory starts on a 4096-byte boundary)
     * @param access the rights of the region
     * @return the region, which owns its memory
     * @throws RdmaException            if the registration fails
     * @throws IllegalArgumentException if {@code size} is not positive
     */
    public MemoryRegion allocate(long size, Access... access) throws RdmaException {
        if (size <= 0) {
            throw new IllegalArgumentException("size must be positive, not " + size);
        }
        return allocateOwned(checkedAccess(access), arena -> arena.allocate(size, 4096));
    }

    /**
     * A shared receive queue of {@code maxWr} requests of up to {@code maxSge} entries ({@code ibv_create_srq}), the
     * short form of {@code sharedReceiveQueue(maxWr, maxSge).create()}.
     *
     * @param maxWr  the number of outstanding receive requests it holds (the device may round up)
     * @param maxSge the scatter/gather entries per request
     * @return the new queue, a child of this protection domain
     * @throws RdmaException            if {@code ibv_create_srq} fails, e.g. {@code EINVAL} past the device limits
     * @throws IllegalArgumentException if {@code maxWr} or {@code maxSge} is less than 1
     * @throws IllegalStateException    if the protection domain is closed
     */
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge) throws RdmaException {
        return sharedReceiveQueue(maxWr, maxSge).create();
    }

    /**
     * A builder of a shared receive queue of {@code maxWr} requests of up to {@code maxSge} entries, for the options
     * the short form lacks (the completion queue of its receives).
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=srq-ex}
     *
     * @param maxWr  the number of outstanding receive requests it holds (checked by
     *     {@link SharedReceiveQueue.Builder#create()})
     * @param maxSge the scatter/gather entries per request
     * @return a builder; nothing is created until {@link SharedReceiveQueue.Builder#create()}
     * @throws IllegalStateException if the protection domain is closed
     */
    public SharedReceiveQueue.Builder sharedReceiveQueue(int maxWr, int maxSge) {
        guard.checkOpen();
        return new SharedReceiveQueue.Builder(this, maxWr, maxSge);
    }

    /**
     * Allocates a memory window of {@code type} ({@code ibv_alloc_mw}).
     *
     * @param type type 1 (bound through the queue pair's bind verb) or type 2 (bound by a posted BIND_MW)
     * @return the unbound window, a child of this protection domain
     * @throws RdmaException if {@code ibv_alloc_mw} fails, e.g. {@code EOPNOTSUPP} on a device without windows
     */
    public MemoryWindow allocateMemoryWindow(MemoryWindow.Type type) throws RdmaException {
        guard.checkOpen();
        return MemoryWindow.create(this, type);
    }

    /**
     * Maps {@code size} bytes of huge pages (a multiple of the huge page size) and registers them; closing the
     * region unmaps them.
     *
     * @param size   the number of bytes
     * @param access the rights of the region
     * @return the region, which owns its memory
     * @throws RdmaException            if the registration fails
     * @throws IllegalArgumentException if {@code size} is not positive
     * @throws UnsupportedOperationException when the kernel has no free huge pages
     */
    public MemoryRegion allocateHugePages(long size, Access... access) throws RdmaException {
        if (size <= 0) {
            throw new IllegalArgumentException("size must be positive, not " + size);
        }
        return allocateOwned(checkedAccess(access), arena -> HugePages.map(size, arena));
    }

    /** Registers memory that {@code allocator} takes from a new arena which the region owns and closes. */
    private MemoryRegion allocateOwned(EnumSet<Access> access, Function<Arena, MemorySegment> allocator)
            throws RdmaException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment memory = allocator.apply(arena);
            return ResourceGuard.create(() -> new MemoryRegion(this, memory, arena, access, true), mr -> mr.guard,
                    guard);
        } catch (RuntimeException | RdmaException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Starts building a queue pair of {@code type} in this PD.
     *
     * @param type the transport
     * @return a builder; nothing is created until {@link QueuePair.Builder#create()}
     * @throws IllegalStateException if the protection domain is closed
     */
    public QueuePair.Builder queuePair(QpType type) {
        guard.checkOpen();
        return new QueuePair.Builder(this, type);
    }

    /**
     * An address handle towards {@code remote} for UD sends from local {@code port} ({@code ibv_create_ah}), with a
     * GRH from local GID {@code gidIndex} (hop limit {@link GlobalRoute#DEFAULT_HOP_LIMIT}), or -1 to route by LID
     * only. Other paths (a service level, a static rate, a Global Route Header of its own) go through
     * {@link #createAddressHandle(AddressVector)}.
     *
     * @param remote   the peer (its LID and GID)
     * @param port     the local port, from 1
     * @param gidIndex the local GID index for the GRH, or -1 for none (InfiniBand within the subnet)
     * @return the new address handle, a child of this protection domain
     * @throws RdmaException            if {@code ibv_create_ah} fails
     * @throws IllegalArgumentException if {@code gidIndex} is -1 but the peer has no LID (RoCE)
     */
    public AddressHandle createAddressHandle(Endpoint remote, int port, int gidIndex) throws RdmaException {
        return createAddressHandle(AddressVector.to(remote, port, gidIndex));
    }

    /**
     * An address handle along {@code path} ({@code ibv_create_ah}): every field of the address vector and its
     * Global Route Header as given.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=address-vector}
     *
     * @param path the path, with its local port
     * @return the new address handle, a child of this protection domain
     * @throws RdmaException            if {@code ibv_create_ah} fails, e.g. {@code EINVAL} for a GID index the port
     *     lacks
     * @throws IllegalArgumentException if the path has no local port
     * @throws IllegalStateException    if the protection domain is closed
     */
    public AddressHandle createAddressHandle(AddressVector path) throws RdmaException {
        guard.checkOpen();
        return AddressHandle.create(this, path);
    }

    /**
     * An address handle back to the sender of UD receive completion {@code index} ({@code ibv_create_ah_from_wc});
     * {@code grh} is the start of that receive's buffer, where the device put the Global Route Header.
     *
     * @param wcs   the polled completions
     * @param index the receive completion in {@code wcs}
     * @param grh   the first {@link AddressHandle#GRH_BYTES} bytes of that receive's buffer
     * @param port  the local port it arrived on
     * @return the new address handle
     * @throws RdmaException            if {@code ibv_create_ah_from_wc} fails
     * @throws IllegalArgumentException if {@code grh} is shorter than {@link AddressHandle#GRH_BYTES}
     */
    public AddressHandle createAddressHandle(WorkCompletions wcs, int index, MemorySegment grh, int port)
            throws RdmaException {
        guard.checkOpen();
        return AddressHandle.fromCompletion(this, wcs, index, grh, port);
    }

    /** The access set, checked for consistency and, for ON_DEMAND, against the device's capabilities. */
    private EnumSet<Access> checkedAccess(Access[] access) throws RdmaException {
        EnumSet<Access> set = Access.setOf(access);
        Access.maskOf(set);
        if (set.contains(Access.ON_DEMAND) && !context.queryDeviceEx().supportsOnDemandPaging()) {
            throw new UnsupportedOperationException(context.device().name()
                    + " cannot do on-demand paging (no IBV_ODP_SUPPORT): register without ON_DEMAND");
        }
        return set;
    }

    /** Frees a leaked protection domain; it must not refer to this object. */
    private Runnable releaseIfLeaked() {
        MemorySegment leaked = pd;
        return adopted ? null : () -> ibverbs_h.ibv_dealloc_pd(leaked);
    }

    private void destroy() throws RdmaException {
        if (!adopted) {
            Verbs.check("ibv_dealloc_pd", ibverbs_h.ibv_dealloc_pd(pd));
        }
    }

    /** The native {@code struct ibv_pd *}. */
    MemorySegment segment() {
        return pd;
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
        return "ProtectionDomain[" + context.device().name() + ", handle " + handle + "]";
    }
}
