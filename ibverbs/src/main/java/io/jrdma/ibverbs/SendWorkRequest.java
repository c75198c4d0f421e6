package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_mw_bind_info;
import io.jrdma.bindings.ibverbs.ibv_send_wr;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.ResourceGuard;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A reusable send work request ({@code struct ibv_send_wr} with its scatter/gather list), written in place:
 * allocate it once, {@link #reset()} and refill it for every post. Nothing here allocates.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=send-request}
 *
 * <p>Not thread-safe: give each posting thread its own requests (see {@link QueuePair} on threads). Once
 * {@code postSend} returns, the request may be refilled: the provider has copied it (and, for inline sends, the data).
 */
public final class SendWorkRequest {
    private static final long WR_ID = ibv_send_wr.wr_id$offset();
    private static final long NEXT = ibv_send_wr.next$offset();
    private static final long SG_LIST = ibv_send_wr.sg_list$offset();
    private static final long NUM_SGE = ibv_send_wr.num_sge$offset();
    private static final long OPCODE = ibv_send_wr.opcode$offset();
    private static final long SEND_FLAGS = ibv_send_wr.send_flags$offset();
    private static final long IMM_DATA = ibv_send_wr.imm_data$offset();
    private static final long INVALIDATE_RKEY = ibv_send_wr.invalidate_rkey$offset();
    // Nested union members, at offsets summed once: the generated nested getters would slice (allocate) per call.
    private static final long WR = ibv_send_wr.wr$offset();
    private static final long WR_SIZE = ibv_send_wr.wr$layout().byteSize();
    private static final long RDMA_REMOTE_ADDR = WR + ibv_send_wr.wr.rdma$offset() + ibv_send_wr.wr.rdma.remote_addr$offset();
    private static final long RDMA_RKEY = WR + ibv_send_wr.wr.rdma$offset() + ibv_send_wr.wr.rdma.rkey$offset();
    private static final long ATOMIC_REMOTE_ADDR = WR + ibv_send_wr.wr.atomic$offset() + ibv_send_wr.wr.atomic.remote_addr$offset();
    private static final long ATOMIC_COMPARE_ADD = WR + ibv_send_wr.wr.atomic$offset() + ibv_send_wr.wr.atomic.compare_add$offset();
    private static final long ATOMIC_SWAP = WR + ibv_send_wr.wr.atomic$offset() + ibv_send_wr.wr.atomic.swap$offset();
    private static final long ATOMIC_RKEY = WR + ibv_send_wr.wr.atomic$offset() + ibv_send_wr.wr.atomic.rkey$offset();
    private static final long UD_AH = WR + ibv_send_wr.wr.ud$offset() + ibv_send_wr.wr.ud.ah$offset();
    private static final long UD_REMOTE_QPN = WR + ibv_send_wr.wr.ud$offset() + ibv_send_wr.wr.ud.remote_qpn$offset();
    private static final long UD_REMOTE_QKEY = WR + ibv_send_wr.wr.ud$offset() + ibv_send_wr.wr.ud.remote_qkey$offset();
    private static final long BIND_MW = ibv_send_wr.bind_mw$offset();
    private static final long BIND_MW_MW = BIND_MW + ibv_send_wr.bind_mw.mw$offset();
    private static final long BIND_MW_RKEY = BIND_MW + ibv_send_wr.bind_mw.rkey$offset();
    private static final long BIND_INFO = BIND_MW + ibv_send_wr.bind_mw.bind_info$offset();
    private static final long BIND_INFO_MR = BIND_INFO + ibv_mw_bind_info.mr$offset();
    private static final long BIND_INFO_ADDR = BIND_INFO + ibv_mw_bind_info.addr$offset();
    private static final long BIND_INFO_LENGTH = BIND_INFO + ibv_mw_bind_info.length$offset();
    private static final long BIND_INFO_ACCESS = BIND_INFO + ibv_mw_bind_info.mw_access_flags$offset();
    private static final int SIGNALED = ibverbs_h.IBV_SEND_SIGNALED();
    private static final int SOLICITED = ibverbs_h.IBV_SEND_SOLICITED();
    private static final int INLINE = ibverbs_h.IBV_SEND_INLINE();
    private static final int FENCE = ibverbs_h.IBV_SEND_FENCE();

    private final MemorySegment wr;
    private final MemorySegment badWr;
    /** {@code wr}'s scope, kept to check it one load nearer: a post checks every request's. */
    private final MemorySegment.Scope scope;
    private final ScatterGatherList sgl;
    private SendOpcode opcode = SendOpcode.SEND;
    /** The member of the {@code wr} union written last; the union's other bytes are zero. */
    private Operands operands = Operands.NONE;
    /** {@code send_flags} as written, kept here too so that posting checks them without reading native memory. */
    private int flags;
    private SendWorkRequest next;
    private AddressHandle addressHandle;
    private MemoryWindow window;
    private MemoryRegion windowRegion;
    private int windowRkey;
    /** What a post holds open while the provider reads it in user space; see {@link #hold()}. */
    private final ResourceGuard[] inUse;
    /** Held while a post reads the request, if its arena can be closed: the close waits for the post. */
    private final ResourceGuard arenaUse;
    private int inUseCount;

    /**
     * A request with room for {@code maxSge} scatter/gather entries, freed when it becomes unreachable.
     *
     * @param maxSge the most scatter/gather entries it will carry
     * @throws IllegalArgumentException if {@code maxSge} is negative
     */
    public SendWorkRequest(int maxSge) {
        this(maxSge, Arena.ofAuto(), false);
    }

    /**
     * A request with room for {@code maxSge} scatter/gather entries, in {@code arena}.
     *
     * @param maxSge the most scatter/gather entries it will carry
     * @param arena  where its native memory lives; closing the arena waits for a post that reads the request, and
     *               makes it unusable (later posts refuse it)
     * @throws IllegalArgumentException if {@code maxSge} is negative
     */
    public SendWorkRequest(int maxSge, Arena arena) {
        this(maxSge, arena, true);
    }

    private SendWorkRequest(int maxSge, Arena arena, boolean closeable) {
        this.wr = ibv_send_wr.allocate(arena);
        this.arenaUse = closeable ? ResourceGuard.ofArena(arena, "a send request's arena") : null;
        this.badWr = arena.allocate(ValueLayout.ADDRESS);
        this.scope = wr.scope();
        this.sgl = new ScatterGatherList(maxSge, arena);
        this.inUse = new ResourceGuard[Math.max(0, maxSge) + 4];
        reset();
    }

    /**
     * Clears everything: id 0, SEND, no flags, no entries, no next request.
     *
     * @return this request
     */
    public SendWorkRequest reset() {
        wr.fill((byte) 0);
        wr.set(ValueLayout.ADDRESS, SG_LIST, sgl.segment());
        sgl.clear();
        opcode = SendOpcode.SEND;
        operands = Operands.NONE;
        flags = 0;
        next = null;
        addressHandle = null;
        window = null;
        windowRegion = null;
        return this;
    }

    /**
     * The {@code wr_id} its completion carries.
     *
     * @param id any value; the application's name for the request
     * @return this request
     */
    public SendWorkRequest id(long id) {
        wr.set(ValueLayout.JAVA_LONG, WR_ID, id);
        return this;
    }

    /**
     * The operation (default {@link SendOpcode#SEND}). The operands it needs are set by {@link #rdma},
     * {@link #atomic},
     * {@link #immediate}, {@link #invalidate} or {@link #datagram}.
     *
     * @param opcode the operation
     * @return this request
     */
    public SendWorkRequest opcode(SendOpcode opcode) {
        this.opcode = opcode;
        wr.set(ValueLayout.JAVA_INT, OPCODE, opcode.value());
        return this;
    }

    /**
     * Appends {@code [offset, offset + length)} of {@code mr} to the scatter/gather list (bounds checked).
     *
     * @param mr     a region of the queue pair's protection domain (checked when posting)
     * @param offset the first byte, from the start of the region
     * @param length the number of bytes
     * @return this request
     * @throws IndexOutOfBoundsException if the range is not inside the region
     * @throws IllegalArgumentException  if {@code length} is negative
     * @throws IllegalStateException     if the list is full, or the region is closed
     */
    public SendWorkRequest add(MemoryRegion mr, long offset, int length) {
        sgl.add(mr, offset, length);
        wr.set(ValueLayout.JAVA_INT, NUM_SGE, sgl.count());
        return this;
    }

    /**
     * Whether this request produces a completion (needed when the QP does not signal all).
     *
     * @param on {@code true} to get a completion for this request
     * @return this request
     */
    public SendWorkRequest signaled(boolean on) {
        return flag(SIGNALED, on);
    }

    /**
     * Whether the receiver's solicited-only notification fires for this SEND.
     *
     * @param on {@code true} to set the solicited flag
     * @return this request
     */
    public SendWorkRequest solicited(boolean on) {
        return flag(SOLICITED, on);
    }

    /**
     * Whether the data is copied into the work request (up to the QP's max inline data).
     *
     * @param on {@code true} to send the bytes inline: the regions may be reused as soon as the post returns
     * @return this request
     */
    public SendWorkRequest inline(boolean on) {
        return flag(INLINE, on);
    }

    /**
     * Whether this request waits for earlier RDMA READs and atomics to complete.
     *
     * @param on {@code true} to fence
     * @return this request
     */
    public SendWorkRequest fence(boolean on) {
        return flag(FENCE, on);
    }

    /**
     * Immediate data (host byte order) for SEND_WITH_IMM and RDMA_WRITE_WITH_IMM.
     *
     * @param value the 32-bit value the receiver's completion reports ({@link WorkCompletions#immediate})
     * @return this request
     */
    public SendWorkRequest immediate(int value) {
        wr.set(ValueLayout.JAVA_INT, IMM_DATA, Integer.reverseBytes(value));
        return this;
    }

    /**
     * The remote key SEND_WITH_INV invalidates at the receiver.
     *
     * @param rkey the receiver's rkey to invalidate
     * @return this request
     */
    public SendWorkRequest invalidate(int rkey) {
        wr.set(ValueLayout.JAVA_INT, INVALIDATE_RKEY, rkey);
        return this;
    }

    /**
     * The remote memory of RDMA_WRITE(_WITH_IMM) and RDMA_READ.
     *
     * @param remoteAddress the peer's virtual address (its {@link MemoryRegion#address()} plus an offset)
     * @param rkey          the peer region's or window's remote key
     * @return this request
     */
    public SendWorkRequest rdma(long remoteAddress, int rkey) {
        operands(Operands.RDMA);
        wr.set(ValueLayout.JAVA_LONG, RDMA_REMOTE_ADDR, remoteAddress);
        wr.set(ValueLayout.JAVA_INT, RDMA_RKEY, rkey);
        return this;
    }

    /**
     * The operands of an atomic: the 8-byte aligned remote word, and compare/swap values (CMP_AND_SWP) or the
     * addend in {@code compareAdd} (FETCH_AND_ADD). The old remote value lands in the 8-byte local entry.
     *
     * @param remoteAddress the peer's 8-byte word
     * @param rkey          the peer region's remote key (registered with {@link Access#REMOTE_ATOMIC})
     * @param compareAdd    the value to compare with (CMP_AND_SWP) or to add (FETCH_AND_ADD)
     * @param swap          the value to swap in (CMP_AND_SWP; ignored by FETCH_AND_ADD)
     * @return this request
     * @throws IllegalArgumentException if {@code remoteAddress} is not 8-byte aligned
     */
    public SendWorkRequest atomic(long remoteAddress, int rkey, long compareAdd, long swap) {
        if ((remoteAddress & 7) != 0) {
            throw new IllegalArgumentException("atomics need an 8-byte aligned remote address, not 0x"
                    + Long.toHexString(remoteAddress));
        }
        operands(Operands.ATOMIC);
        wr.set(ValueLayout.JAVA_LONG, ATOMIC_REMOTE_ADDR, remoteAddress);
        wr.set(ValueLayout.JAVA_INT, ATOMIC_RKEY, rkey);
        wr.set(ValueLayout.JAVA_LONG, ATOMIC_COMPARE_ADD, compareAdd);
        wr.set(ValueLayout.JAVA_LONG, ATOMIC_SWAP, swap);
        return this;
    }

    /**
     * The destination of a UD send: the path, the remote QP number and the Q_Key it expects.
     *
     * @param ah         the path to the peer's port
     * @param remoteQpn  the peer's queue pair number
     * @param remoteQkey the peer's Q_Key
     * @return this request
     * @throws IllegalStateException if the address handle is closed
     */
    public SendWorkRequest datagram(AddressHandle ah, int remoteQpn, int remoteQkey) {
        MemorySegment handle = ah.segment();
        operands(Operands.DATAGRAM);
        wr.set(ValueLayout.ADDRESS, UD_AH, handle);
        wr.set(ValueLayout.JAVA_INT, UD_REMOTE_QPN, remoteQpn);
        wr.set(ValueLayout.JAVA_INT, UD_REMOTE_QKEY, remoteQkey);
        addressHandle = ah;
        return this;
    }

    /**
     * Makes this a BIND_MW request binding type 2 window {@code mw} to {@code [offset, offset + length)} of
     * {@code mr} under {@code newRkey} (see {@link MemoryWindow#nextRemoteKey()}), granting {@code access}.
     *
     * @param mw      a type 2 window of the queue pair's protection domain
     * @param newRkey the window's rkey after the bind, usually {@code mw.nextRemoteKey()}
     * @param mr      the region, registered with {@link Access#MW_BIND}
     * @param offset  the first byte of the window, from the start of the region
     * @param length  the window's length in bytes
     * @param access  the rights peers get: remote read, write, atomic and {@link Access#ZERO_BASED} only
     * @return this request
     * @throws IllegalArgumentException  if the window is not type 2, the region is of another protection domain or
     *                                   lacks MW_BIND, or {@code access} grants more than remote rights
     * @throws IndexOutOfBoundsException if the range is not inside the region
     * @throws IllegalStateException     if the window or the region is closed
     */
    public SendWorkRequest bindWindow(MemoryWindow mw, int newRkey, MemoryRegion mr, long offset, long length,
                                      Access... access) {
        if (mw.type() != MemoryWindow.Type.TYPE_2) {
            throw new IllegalArgumentException("BIND_MW work requests bind type 2 windows; use MemoryWindow.bind");
        }
        if (mr.protectionDomain() != mw.protectionDomain() || !mr.access().contains(Access.MW_BIND)) {
            throw new IllegalArgumentException("windows bind only to regions of their PD registered with MW_BIND: "
                    + mr);
        }
        mr.checkRange(offset, length);
        opcode(SendOpcode.BIND_MW);
        wr.set(ValueLayout.ADDRESS, BIND_MW_MW, mw.segment());
        wr.set(ValueLayout.JAVA_INT, BIND_MW_RKEY, newRkey);
        wr.set(ValueLayout.ADDRESS, BIND_INFO_MR, mr.nativeRegion());
        wr.set(ValueLayout.JAVA_LONG, BIND_INFO_ADDR, mr.address() + offset);
        wr.set(ValueLayout.JAVA_LONG, BIND_INFO_LENGTH, length);
        wr.set(ValueLayout.JAVA_INT, BIND_INFO_ACCESS, MemoryWindow.windowAccess(access));
        window = mw;
        windowRegion = mr;
        windowRkey = newRkey;
        return this;
    }

    /**
     * Makes this a LOCAL_INV request revoking {@code rkey} (a type 2 window's).
     *
     * @param rkey the rkey to revoke
     * @return this request
     */
    public SendWorkRequest localInvalidate(int rkey) {
        opcode(SendOpcode.LOCAL_INV);
        return invalidate(rkey);
    }

    /**
     * Chains {@code next} after this request (one post sends both); {@code null} ends the chain.
     *
     * @param next the request to post after this one, or {@code null}
     * @return this request
     */
    public SendWorkRequest next(SendWorkRequest next) {
        this.next = next;
        wr.set(ValueLayout.ADDRESS, NEXT, next == null ? MemorySegment.NULL : next.wr);
        return this;
    }

    /**
     * The request chained after this one.
     *
     * @return the next request, or {@code null} at the end of the chain
     */
    public SendWorkRequest next() {
        return next;
    }

    /**
     * The operation it carries.
     *
     * @return the opcode
     */
    public SendOpcode opcode() {
        return opcode;
    }

    /**
     * Entries in the scatter/gather list.
     *
     * @return the number of entries added since the last {@link #reset()}
     */
    public int sgeCount() {
        return sgl.count();
    }

    long totalBytes() {
        return sgl.totalBytes();
    }

    /**
     * Makes {@code kind} the union member this request holds: switching zeroes the union (so no byte of the
     * previous member survives into the new one) and forgets a UD destination. Allocation-free.
     */
    private void operands(Operands kind) {
        if (operands != kind) {
            for (long at = 0; at < WR_SIZE; at += Long.BYTES) {
                wr.set(ValueLayout.JAVA_LONG_UNALIGNED, WR + at, 0L);
            }
            addressHandle = null;
            operands = kind;
        }
    }

    /** The member of the {@code wr} union this request holds. */
    Operands operands() {
        return operands;
    }

    /** After a successful post: a BIND_MW request moves its window to the new rkey. */
    void posted() {
        if (window != null && opcode == SendOpcode.BIND_MW) {
            window.boundTo(windowRkey, windowRegion);
        }
    }

    /**
     * Refuses what the device must not be handed: regions, an address handle or a window of another protection
     * domain than {@code pd} (the queue pair's), or a closed one.
     */
    void check(ProtectionDomain pd) {
        if (!scope.isAlive()) {   // a request of a chain in a closed arena: the provider would read freed memory
            throw new IllegalStateException("a send request of the chain is in a closed arena");
        }
        sgl.check(pd);
        if (addressHandle != null && addressHandle.protectionDomain() != pd) {
            throw new IllegalArgumentException(addressHandle + " is of another protection domain than " + pd);
        }
        if (window != null) {
            if (window.protectionDomain() != pd) {
                throw new IllegalArgumentException(window + " is of another protection domain than " + pd);
            }
            if (window.isClosed() || windowRegion.isClosed()) {
                throw new IllegalStateException("BIND_MW of a closed window or region: " + window + ", "
                        + windowRegion);
            }
        }
    }

    /**
     * Holds open, until {@link #release()}, what the provider reads in user space while posting: the regions of
     * inline data (copied by the CPU), the address handle, the window with its region, and the request's own arena
     * (a chain links to it by address). A concurrent close of one of them waits for the post instead of freeing
     * memory under it.
     *
     * @throws IllegalStateException    if one of them is closed (nothing is held then)
     * @throws IllegalArgumentException if this request is held already: it appears twice in one chain (a cycle)
     */
    void hold() {
        if (inUseCount != 0) {
            // Holding it again would overwrite what the first hold must release.
            throw metTwice();
        }
        int n = isInline() ? sgl.regionGuardsInto(inUse, 0) : 0;
        if (arenaUse != null) {
            inUse[n++] = arenaUse;
        }
        if (addressHandle != null) {
            inUse[n++] = addressHandle.guard;
        }
        if (window != null) {
            inUse[n++] = window.guard;
            inUse[n++] = windowRegion.guard;
        }
        ResourceGuard.enterAll(inUse, n);
        inUseCount = n;
    }

    /** The refusal of a chain that holds this request twice. */
    IllegalArgumentException metTwice() {
        return new IllegalArgumentException("the request with wr_id " + idValue()
                + " appears twice in the chain (a cycle?)");
    }

    /** Whether {@link #hold()} has anything to hold: inline data's regions, an address handle or a window. */
    boolean holdsAnything() {
        return isInline() || addressHandle != null || window != null || arenaUse != null;
    }

    /** Ends {@link #hold()}. */
    void release() {
        ResourceGuard.exitAll(inUse, inUseCount);
        inUseCount = 0;
    }

    /** The window of a BIND_MW request made by {@link #bindWindow}, or null. */
    MemoryWindow window() {
        return window;
    }

    /** The UD destination, or null. Kept so that a post can refuse a destroyed one. */
    AddressHandle addressHandle() {
        return addressHandle;
    }

    /** Whether every entry's memory is mapped in this process (none is dma-buf), so that the CPU can copy it. */
    boolean inlinesMappedMemory() {
        return sgl.allMapped();
    }

    boolean isInline() {
        return (flags & INLINE) != 0;
    }

    long idValue() {
        return wr.get(ValueLayout.JAVA_LONG, WR_ID);
    }

    MemorySegment segment() {
        return wr;
    }

    MemorySegment badWrSlot() {
        return badWr;
    }

    private SendWorkRequest flag(int bit, boolean on) {
        flags = on ? flags | bit : flags & ~bit;
        wr.set(ValueLayout.JAVA_INT, SEND_FLAGS, flags);
        return this;
    }
}
