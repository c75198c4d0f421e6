package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_qp_ex;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.DataPath;
import io.jrdma.ibverbs.internal.Errno;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Set;

/**
 * The extended send API of a queue pair built with {@link QueuePair.Builder#extendedSendOps}
 * ({@code ibv_wr_start}, the {@code ibv_wr_*} builders and {@code ibv_wr_complete}): requests are written straight
 * into the send queue, no {@code ibv_send_wr} in between. Allocation-free.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=extended-post}
 *
 * <p>On a {@link ThreadConfinement#CONFINED} queue pair only its owner may start a batch; the other calls of a
 * batch work only on the thread that started it.
 */
@SuppressWarnings("restricted")
public final class ExtendedPost {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    /** {@code void (*)(struct ibv_qp_ex *)}: wr_start, wr_send, wr_abort. */
    private static final MethodHandle VOID_OF_QP = handle(ibv_qp_ex.wr_start.descriptor());
    private static final MethodHandle COMPLETE = handle(ibv_qp_ex.wr_complete.descriptor());
    /** {@code void (*)(struct ibv_qp_ex *, uint32_t rkey, uint64_t remote_addr)}: RDMA write and read. */
    private static final MethodHandle RDMA = handle(ibv_qp_ex.wr_rdma_write.descriptor());
    private static final MethodHandle RDMA_IMM = handle(ibv_qp_ex.wr_rdma_write_imm.descriptor());
    /** {@code void (*)(struct ibv_qp_ex *, uint32_t)}: send with immediate or invalidate, local invalidate. */
    private static final MethodHandle VOID_OF_QP_INT = handle(ibv_qp_ex.wr_send_imm.descriptor());
    private static final MethodHandle CMP_SWP = handle(ibv_qp_ex.wr_atomic_cmp_swp.descriptor());
    private static final MethodHandle FETCH_ADD = handle(ibv_qp_ex.wr_atomic_fetch_add.descriptor());
    private static final MethodHandle SET_SGE = handle(ibv_qp_ex.wr_set_sge.descriptor());
    private static final MethodHandle SET_INLINE = handle(ibv_qp_ex.wr_set_inline_data.descriptor());
    private static final MethodHandle SET_UD_ADDR = handle(ibv_qp_ex.wr_set_ud_addr.descriptor());
    private static final long WR_ID = ibv_qp_ex.wr_id$offset();
    private static final long WR_FLAGS = ibv_qp_ex.wr_flags$offset();
    private static final int SIGNALED = ibverbs_h.IBV_SEND_SIGNALED();
    private static final int SOLICITED = ibverbs_h.IBV_SEND_SOLICITED();
    private static final int FENCE = ibverbs_h.IBV_SEND_FENCE();
    private static final int INLINE = ibverbs_h.IBV_SEND_INLINE();

    private final QueuePair qp;
    private final MemorySegment qpx;
    private final Set<SendOpcode> ops;
    private final MemorySegment start;
    private final MemorySegment complete;
    private final MemorySegment abort;
    private final MemorySegment rdmaWrite;
    private final MemorySegment rdmaWriteImm;
    private final MemorySegment rdmaRead;
    private final MemorySegment send;
    private final MemorySegment sendImm;
    private final MemorySegment sendInv;
    private final MemorySegment localInv;
    private final MemorySegment cmpSwp;
    private final MemorySegment fetchAdd;
    private final MemorySegment setSge;
    private final MemorySegment setInline;
    private final MemorySegment setUdAddr;
    private final Batch batch;
    /*
     * The request being built: the providers' setters write into the request the last builder started (mlx5 through
     * its cur_data pointer, null before any builder; rxe into the slot before its cursor, a request already posted
     * when no builder ran in this batch). So a setter is taken only while the open request still needs it, once.
     */
    /** The open request still needs its data: {@link #sge} or {@link #inline}. */
    private boolean needsData;
    /** The open request (on a UD queue pair) still needs its destination: {@link #datagram}. */
    private boolean needsAddress;
    /** Requests built in this batch: never more than the send queue holds, so none overflows it on its own. */
    private int built;

    /** {@code thread}: the thread the queue pair is confined to, or null when it is shared. */
    ExtendedPost(QueuePair qp, Thread thread, MemorySegment qpx, Set<SendOpcode> ops) {
        this.qp = qp;
        this.batch = new Batch(qp.guard, thread, "complete() or abort()");
        this.qpx = qpx.reinterpret(ibv_qp_ex.sizeof());
        this.ops = ops;
        MemorySegment x = this.qpx;
        start = required("wr_start", ibv_qp_ex.wr_start(x));
        complete = required("wr_complete", ibv_qp_ex.wr_complete(x));
        abort = required("wr_abort", ibv_qp_ex.wr_abort(x));
        setSge = required("wr_set_sge", ibv_qp_ex.wr_set_sge(x));
        setInline = required("wr_set_inline_data", ibv_qp_ex.wr_set_inline_data(x));
        setUdAddr = qp.type() == QpType.UD ? required("wr_set_ud_addr", ibv_qp_ex.wr_set_ud_addr(x)) : null;
        rdmaWrite = op(SendOpcode.RDMA_WRITE, "wr_rdma_write", ibv_qp_ex.wr_rdma_write(x));
        rdmaWriteImm = op(SendOpcode.RDMA_WRITE_WITH_IMM, "wr_rdma_write_imm", ibv_qp_ex.wr_rdma_write_imm(x));
        rdmaRead = op(SendOpcode.RDMA_READ, "wr_rdma_read", ibv_qp_ex.wr_rdma_read(x));
        send = op(SendOpcode.SEND, "wr_send", ibv_qp_ex.wr_send(x));
        sendImm = op(SendOpcode.SEND_WITH_IMM, "wr_send_imm", ibv_qp_ex.wr_send_imm(x));
        sendInv = op(SendOpcode.SEND_WITH_INV, "wr_send_inv", ibv_qp_ex.wr_send_inv(x));
        localInv = op(SendOpcode.LOCAL_INV, "wr_local_inv", ibv_qp_ex.wr_local_inv(x));
        cmpSwp = op(SendOpcode.ATOMIC_CMP_AND_SWP, "wr_atomic_cmp_swp", ibv_qp_ex.wr_atomic_cmp_swp(x));
        fetchAdd = op(SendOpcode.ATOMIC_FETCH_AND_ADD, "wr_atomic_fetch_add", ibv_qp_ex.wr_atomic_fetch_add(x));
    }

    private static MethodHandle handle(FunctionDescriptor d) {
        return LINKER.downcallHandle(d, CRITICAL);
    }

    /** A NULL provider function would crash when called: refuse it now. */
    private static MemorySegment required(String name, MemorySegment fn) {
        if (fn.equals(MemorySegment.NULL)) {
            throw new UnsupportedOperationException("the provider's extended QP has no " + name);
        }
        return fn;
    }

    private MemorySegment op(SendOpcode op, String name, MemorySegment fn) {
        return ops.contains(op) ? required(name, fn) : null;
    }

    /**
     * {@code ibv_wr_start}: begins a batch of requests. Until {@link #complete()} or {@link #abort()} the queue pair
     * belongs to this thread: closing it from another thread waits for that end.
     *
     * @return this poster, to set the first request
     * @throws IllegalStateException if the queue pair is closed, or a batch is already open on it (this thread's
     *                               or another's: one batch at a time per queue pair)
     * @throws WrongThreadException  if the queue pair is {@link ThreadConfinement#CONFINED} to another thread
     */
    public ExtendedPost start() {
        batch.begin();
        needsData = false;
        needsAddress = false;
        built = 0;
        call0(VOID_OF_QP, start);
        return this;
    }

    /** Refuses a close of the queue pair from inside this thread's batch. */
    void checkClosable() {
        batch.checkClosable();
    }

    /**
     * The {@code wr_id} of the next request; set it before the request's operation.
     *
     * @param id the value its completion carries
     * @return this poster
     */
    public ExtendedPost id(long id) {
        checkOpenBatch();
        qpx.set(ValueLayout.JAVA_LONG, WR_ID, id);
        return this;
    }

    /**
     * Only the signaled flag of the next request, the others cleared; set it before the request's operation.
     *
     * @param signaled whether the request produces a completion
     * @return this poster
     */
    public ExtendedPost signaled(boolean signaled) {
        return flags(signaled, false, false, false);
    }

    /**
     * All flags of the next request at once.
     *
     * @param signaled  whether the request produces a completion
     * @param solicited whether the receiver's solicited-only notification fires
     * @param fence     whether it waits for earlier RDMA READs and atomics
     * @param inline    whether its data is given with {@link #inline}
     * @return this poster
     */
    public ExtendedPost flags(boolean signaled, boolean solicited, boolean fence, boolean inline) {
        checkOpenBatch();
        qpx.set(ValueLayout.JAVA_INT, WR_FLAGS,
                (signaled ? SIGNALED : 0) | (solicited ? SOLICITED : 0) | (fence ? FENCE : 0) | (inline ? INLINE : 0));
        return this;
    }

    /**
     * Starts an RDMA WRITE request to the peer's memory; give its data next with {@link #sge} or {@link #inline}.
     *
     * @param rkey          the peer region's remote key
     * @param remoteAddress the peer's virtual address
     * @return this poster
     * @throws IllegalStateException if this thread has no batch open, or the operation was not among the queue pair's
     * {@link QueuePair.Builder#extendedSendOps}, or the request under way still needs
     *     its data or destination, or the batch holds as many requests as the send queue
     */
    public ExtendedPost rdmaWrite(int rkey, long remoteAddress) {
        return rdma(SendOpcode.RDMA_WRITE, rdmaWrite, rkey, remoteAddress);
    }

    /**
     * Starts an RDMA READ request of the peer's memory; give the local buffer next with {@link #sge}.
     *
     * @param rkey          the peer region's remote key
     * @param remoteAddress the peer's virtual address
     * @return this poster
     * @throws IllegalStateException if this thread has no batch open, or the operation was not among the queue pair's
     * {@link QueuePair.Builder#extendedSendOps}, or the request under way still needs
     *     its data or destination, or the batch holds as many requests as the send queue
     */
    public ExtendedPost rdmaRead(int rkey, long remoteAddress) {
        return rdma(SendOpcode.RDMA_READ, rdmaRead, rkey, remoteAddress);
    }

    /**
     * RDMA WRITE with immediate data (host byte order).
     *
     * @param rkey          the peer region's remote key
     * @param remoteAddress the peer's virtual address
     * @param immediate     the value the peer's receive completion reports
     * @return this poster
     * @throws IllegalStateException if this thread has no batch open, or the operation was not among the queue pair's
     *     {@link QueuePair.Builder#extendedSendOps}, or the request under way still needs
     *     its data or destination, or the batch holds as many requests as the send queue
     */
    public ExtendedPost rdmaWriteImm(int rkey, long remoteAddress, int immediate) {
        MemorySegment fn = need(SendOpcode.RDMA_WRITE_WITH_IMM, rdmaWriteImm);
        try {
            RDMA_IMM.invokeExact(fn, qpx, rkey, remoteAddress, Integer.reverseBytes(immediate));
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
        return this;
    }

    /**
     * Starts a SEND request; give its data next with {@link #sge} or {@link #inline}.
     *
     * @return this poster
     * @throws IllegalStateException if this thread has no batch open, or the operation was not among the queue pair's
     * {@link QueuePair.Builder#extendedSendOps}, or the request under way still needs
     *     its data or destination, or the batch holds as many requests as the send queue
     */
    public ExtendedPost send() {
        call0(VOID_OF_QP, need(SendOpcode.SEND, send));
        return this;
    }

    /**
     * SEND with immediate data (host byte order).
     *
     * @param immediate the value the peer's receive completion reports
     * @return this poster
     * @throws IllegalStateException if this thread has no batch open, or the operation was not among the queue pair's
     *     {@link QueuePair.Builder#extendedSendOps}, or the request under way still needs
     *     its data or destination, or the batch holds as many requests as the send queue
     */
    public ExtendedPost sendImm(int immediate) {
        return withKey(VOID_OF_QP_INT, need(SendOpcode.SEND_WITH_IMM, sendImm), Integer.reverseBytes(immediate));
    }

    /**
     * SEND that invalidates {@code rkey} at the receiver.
     *
     * @param rkey the receiver's rkey to invalidate
     * @return this poster
     * @throws IllegalStateException if this thread has no batch open, or the operation was not among the queue pair's
     *     {@link QueuePair.Builder#extendedSendOps}, or the request under way still needs
     *     its data or destination, or the batch holds as many requests as the send queue
     */
    public ExtendedPost sendInvalidate(int rkey) {
        return withKey(VOID_OF_QP_INT, need(SendOpcode.SEND_WITH_INV, sendInv), rkey);
    }

    /**
     * LOCAL_INV of {@code rkey}.
     *
     * @param rkey the local window's or region's rkey
     * @return this poster
     * @throws IllegalStateException if this thread has no batch open, or the operation was not among the queue pair's
     *     {@link QueuePair.Builder#extendedSendOps}, or the request under way still needs
     *     its data or destination, or the batch holds as many requests as the send queue
     */
    public ExtendedPost localInvalidate(int rkey) {
        return withKey(VOID_OF_QP_INT, need(SendOpcode.LOCAL_INV, localInv), rkey);
    }

    /**
     * Compare-and-swap on the 8-byte aligned remote word; the old value lands in the request's 8-byte entry.
     *
     * @param rkey          the peer region's remote key
     * @param remoteAddress the peer's word, 8-byte aligned
     * @param compare       the expected value
     * @param swap          the value written if the word equals {@code compare}
     * @return this poster
     * @throws IllegalArgumentException if {@code remoteAddress} is not 8-byte aligned
     * @throws IllegalStateException if this thread has no batch open, or the operation was not among the queue pair's
     *     {@link QueuePair.Builder#extendedSendOps}, or the request under way still needs
     *     its data or destination, or the batch holds as many requests as the send queue
     */
    public ExtendedPost atomicCompareSwap(int rkey, long remoteAddress, long compare, long swap) {
        checkAligned(remoteAddress);
        MemorySegment fn = need(SendOpcode.ATOMIC_CMP_AND_SWP, cmpSwp);
        try {
            CMP_SWP.invokeExact(fn, qpx, rkey, remoteAddress, compare, swap);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
        return this;
    }

    /**
     * Fetch-and-add on the 8-byte aligned remote word; the old value lands in the request's 8-byte entry.
     *
     * @param rkey          the peer region's remote key
     * @param remoteAddress the peer's word, 8-byte aligned
     * @param add           the value added
     * @return this poster
     * @throws IllegalArgumentException if {@code remoteAddress} is not 8-byte aligned
     * @throws IllegalStateException if this thread has no batch open, or the operation was not among the queue pair's
     *     {@link QueuePair.Builder#extendedSendOps}, or the request under way still needs
     *     its data or destination, or the batch holds as many requests as the send queue
     */
    public ExtendedPost atomicFetchAdd(int rkey, long remoteAddress, long add) {
        checkAligned(remoteAddress);
        MemorySegment fn = need(SendOpcode.ATOMIC_FETCH_AND_ADD, fetchAdd);
        try {
            FETCH_ADD.invokeExact(fn, qpx, rkey, remoteAddress, add);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
        return this;
    }

    /**
     * The data of the current request: {@code [offset, offset + length)} of {@code mr} (bounds checked).
     *
     * @param mr     a region of the queue pair's protection domain
     * @param offset the first byte, from the start of the region
     * @param length the number of bytes
     * @return this poster
     * @throws IllegalArgumentException  if {@code length} is negative or the region is of another protection domain
     * @throws IndexOutOfBoundsException if the range is not inside the region
     * @throws IllegalStateException     if this thread has no batch open, no request under way needs data (none was
     *                                   started, or it has its data already), or the region is closed
     */
    public ExtendedPost sge(MemoryRegion mr, long offset, int length) {
        setter(true);
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, not " + length);
        }
        mr.checkRange(offset, length);
        if (mr.protectionDomain() != qp.protectionDomain()) {
            throw new IllegalArgumentException(mr + " is of another protection domain than " + qp);
        }
        try {
            SET_SGE.invokeExact(setSge, qpx, mr.localKey(), mr.address() + offset, length);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
        needsData = false;
        return this;
    }

    /**
     * The data of the current request, copied into the send queue now: up to the QP's max inline data.
     *
     * @param data native memory; it may be reused as soon as this returns
     * @return this poster
     * @throws IllegalArgumentException if {@code data} is a heap segment or larger than the queue pair's max inline
     *     data
     * @throws IllegalStateException    if this thread has no batch open, or no request under way needs data (none
     *                                  was started, or it has its data already)
     */
    public ExtendedPost inline(MemorySegment data) {
        setter(true);
        if (!data.isNative()) {
            throw new IllegalArgumentException("inline data must be a native segment");
        }
        if (data.byteSize() > qp.capabilities().maxInlineData()) {
            throw new IllegalArgumentException("inline data of " + data.byteSize() + " bytes; this queue pair "
                    + "inlines at most " + qp.capabilities().maxInlineData());
        }
        try {
            SET_INLINE.invokeExact(setInline, qpx, data, data.byteSize());
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
        needsData = false;
        return this;
    }

    /**
     * The destination of the current UD request. The provider copies the address into the request now, so the
     * handle is held open for this call only.
     *
     * @param ah         the path to the peer's port
     * @param remoteQpn  the peer's queue pair number
     * @param remoteQkey the peer's Q_Key
     * @return this poster
     * @throws IllegalArgumentException if {@code ah} is of another protection domain
     * @throws IllegalStateException    if {@code ah} is closed, this is not a UD queue pair, or no request under way
     *                                  needs a destination (none was started, or it has one already)
     */
    public ExtendedPost datagram(AddressHandle ah, int remoteQpn, int remoteQkey) {
        checkOpenBatch();
        if (setUdAddr == null) {
            throw new IllegalStateException("datagram destinations are for UD queue pairs");
        }
        setter(false);
        if (ah.protectionDomain() != qp.protectionDomain()) {
            throw new IllegalArgumentException(ah + " is of another protection domain than " + qp);
        }
        // Held, so that a close on another thread cannot free the handle while the provider reads it.
        ah.guard.enter();
        try {
            SET_UD_ADDR.invokeExact(setUdAddr, qpx, ah.segment(), remoteQpn, remoteQkey);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        } finally {
            ah.guard.exit();
        }
        needsAddress = false;
        return this;
    }

    /**
     * {@code ibv_wr_complete}: posts the batch.
     *
     * @throws RdmaException if the provider refused it; then none of the batch was posted
     * @throws IllegalStateException if this thread has no batch open, or its last request still needs its data or
     *     destination ({@link #abort()} ends the batch then)
     */
    public void complete() throws RdmaException {
        checkOpenBatch();
        checkRequestDone();
        int rc;
        try {
            rc = (int) COMPLETE.invokeExact(complete, qpx);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        } finally {
            batch.finish();
        }
        if (rc != 0) {
            throw Errno.exception("ibv_wr_complete", Math.abs(rc), "no request of the batch was posted");
        }
    }

    /** {@code ibv_wr_abort}: drops the batch. */
    public void abort() {
        checkOpenBatch();
        try {
            call0(VOID_OF_QP, abort);
        } finally {
            batch.finish();
        }
    }

    private ExtendedPost rdma(SendOpcode op, MemorySegment fn, int rkey, long remoteAddress) {
        MemorySegment f = need(op, fn);
        try {
            RDMA.invokeExact(f, qpx, rkey, remoteAddress);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
        return this;
    }

    private ExtendedPost withKey(MethodHandle h, MemorySegment fn, int value) {
        try {
            h.invokeExact(fn, qpx, value);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
        return this;
    }

    /** Starts a request of {@code op}: its provider function, once the batch is open and the last request done. */
    private MemorySegment need(SendOpcode op, MemorySegment fn) {
        checkOpenBatch();
        if (fn == null) {
            throw new IllegalStateException(op + " was not among the queue pair's extendedSendOps");
        }
        checkRequestDone();
        if (built == qp.capabilities().maxSendWr()) {
            throw new IllegalStateException("a batch holds at most " + built + " requests, what " + qp
                    + "'s send queue holds: complete() it and start another");
        }
        built++;
        needsData = op != SendOpcode.LOCAL_INV;
        needsAddress = setUdAddr != null;
        return fn;
    }

    private void checkRequestDone() {
        if (needsData || needsAddress) {
            throw new IllegalStateException("the request under way still needs its "
                    + (needsAddress ? "destination: datagram(...)" : "data: sge(...) or inline(...)"));
        }
    }

    /** Takes the setter a request under way needs: its data ({@code data}) or its destination. */
    private void setter(boolean data) {
        checkOpenBatch();
        if (data ? !needsData : !needsAddress) {
            throw new IllegalStateException((data ? "sge/inline" : "datagram")
                    + " sets the request a builder (send(), rdmaWrite(...), ...) just started, once: "
                    + (built == 0 ? "no request started in this batch" : "the last request has it already"));
        }
    }

    private void call0(MethodHandle h, MemorySegment fn) {
        try {
            h.invokeExact(fn, qpx);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
    }

    /** Whether the current thread has a batch open here: it holds the send queue's lock. */
    boolean isOpenOnThisThread() {
        return batch.heldByCurrentThread();
    }

    private void checkOpenBatch() {
        batch.checkHeld();
    }

    private static void checkAligned(long remoteAddress) {
        if ((remoteAddress & 7) != 0) {
            throw new IllegalArgumentException("atomics need an 8-byte aligned remote address, not 0x"
                    + Long.toHexString(remoteAddress));
        }
    }
}
