package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_mr;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.NativeResource;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Registered memory ({@code struct ibv_mr}): a native segment the device may read and write, named by its local
 * key in work requests and by its remote key to peers.
 *
 * <pre>{@code
 * try (Arena arena = Arena.ofShared()) {
 *     MemorySegment buf = arena.allocate(1 << 20, 4096);
 *     MemoryRegion mr = pd.register(buf, arena, Access.LOCAL_WRITE, Access.REMOTE_READ);
 *     send(peer, mr.address(), mr.remoteKey(), mr.length());   // advertise it
 * }   // closing the arena deregisters the region before the memory is freed
 * }</pre>
 */
public final class MemoryRegion extends NativeResource {
    private static final MethodHandle REG_MR = Errno.capturing(
            ibverbs_h.ibv_reg_mr$address(), ibverbs_h.ibv_reg_mr$descriptor());
    private static final MethodHandle REG_MR_IOVA2 = Errno.capturing(
            ibverbs_h.ibv_reg_mr_iova2$address(), ibverbs_h.ibv_reg_mr_iova2$descriptor());
    private static final MethodHandle REREG_MR = Errno.capturing(
            ibverbs_h.ibv_rereg_mr$address(), ibverbs_h.ibv_rereg_mr$descriptor());
    private static final System.Logger LOG = System.getLogger(MemoryRegion.class.getName());

    private final ProtectionDomain pd;
    private final MemorySegment segment;
    private final Arena ownedArena;
    private volatile Set<Access> access;
    private final MemorySegment mr;
    private volatile int lkey;
    private volatile int rkey;

    MemoryRegion(ProtectionDomain pd, MemorySegment segment, Arena arena, EnumSet<Access> access, boolean owned)
            throws RdmaException {
        super(pd);
        int mask = Access.maskOf(access);
        boolean optional = access.stream().anyMatch(Access::optional);
        // verbs.h's ibv_reg_mr macro: optional access bits only pass through ibv_reg_mr_iova2.
        MemorySegment result = optional
                ? Verbs.pointer("ibv_reg_mr_iova2", REG_MR_IOVA2, pd.segment(), segment, segment.byteSize(),
                        segment.address(), mask)
                : Verbs.pointer("ibv_reg_mr", REG_MR, pd.segment(), segment, segment.byteSize(), mask);
        this.pd = pd;
        this.segment = segment;
        this.ownedArena = owned ? arena : null;
        this.access = Collections.unmodifiableSet(access);
        this.mr = result.reinterpret(ibv_mr.sizeof());
        this.lkey = ibv_mr.lkey(mr);
        this.rkey = ibv_mr.rkey(mr);
        if (!owned) {
            // Runs when the memory's arena closes, before the memory is freed (cleanups run last-added first).
            MemorySegment.NULL.reinterpret(arena, ignored -> deregisterOnArenaClose());
        }
    }

    private void deregisterOnArenaClose() {
        try {
            close();
        } catch (RdmaException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "could not deregister " + this + " when its memory's arena closed", e);
        }
    }

    /** The registered memory. Closed together with its arena. */
    public MemorySegment segment() {
        return segment;
    }

    /** The start address of the region, as a peer addresses it in RDMA operations. */
    public long address() {
        return segment.address();
    }

    /** The length of the region in bytes. */
    public long length() {
        return segment.byteSize();
    }

    /** The local key, for scatter/gather entries. */
    public int localKey() {
        checkOpen();
        return lkey;
    }

    /** The remote key a peer uses to read, write or do atomics on this region. */
    public int remoteKey() {
        checkOpen();
        return rkey;
    }

    /** The access rights it was registered with. */
    public Set<Access> access() {
        return access;
    }

    /** The protection domain it belongs to. */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * Re-registers the region with new access rights ({@code ibv_rereg_mr} with
     * {@code IBV_REREG_MR_CHANGE_ACCESS}); its keys may change, so read them again and re-advertise.
     */
    public void changeAccess(Access... newAccess) throws RdmaException {
        checkOpen();
        EnumSet<Access> set = Access.setOf(newAccess);
        int mask = Access.maskOf(set);
        if (set.stream().anyMatch(Access::optional)) {
            throw new IllegalArgumentException("optional access flags cannot be changed by re-registration: " + set);
        }
        synchronized (this) {
            checkOpen();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = Errno.allocateState(arena);
                int rc;
                try {
                    rc = (int) REREG_MR.invokeExact(state, mr, ibverbs_h.IBV_REREG_MR_CHANGE_ACCESS(),
                            MemorySegment.NULL, MemorySegment.NULL, 0L, mask);
                } catch (Throwable t) {
                    throw new AssertionError(t);
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

    /** The native {@code struct ibv_mr *}. */
    MemorySegment nativeRegion() {
        checkOpen();
        return mr;
    }

    /** The region {@code [offset, offset + length)} of this memory, checked against its bounds. */
    void checkRange(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > segment.byteSize() || offset + length < 0) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + (offset + length) + ") is outside "
                    + this);
        }
    }

    @Override
    protected void destroy() throws RdmaException {
        Verbs.check("ibv_dereg_mr", ibverbs_h.ibv_dereg_mr(mr));
        if (ownedArena != null) {
            ownedArena.close();
        }
    }

    @Override
    public String toString() {
        return "MemoryRegion[0x" + Long.toHexString(segment.address()) + ", " + segment.byteSize() + " bytes, lkey 0x"
                + Integer.toHexString(lkey) + ", rkey 0x" + Integer.toHexString(rkey) + ", " + access + "]";
    }
}
