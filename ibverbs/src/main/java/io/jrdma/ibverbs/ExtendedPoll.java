package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_cq_ex;
import io.jrdma.bindings.ibverbs.ibv_poll_cq_attr;
import io.jrdma.ibverbs.internal.DataPath;
import io.jrdma.ibverbs.internal.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Set;

/**
 * The extended polling cursor of a completion queue created by {@link CompletionQueue.Builder#extended}
 * ({@code ibv_start_poll}, {@code ibv_next_poll}, {@code ibv_end_poll} and the {@code ibv_wc_read_*} readers):
 * completions are read in place, one at a time, without copying whole {@code ibv_wc} structs. Allocation-free.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.CompletionSnippets region=extended-poll}
 *
 * <p>While positioned on a completion the queue is locked for this thread: always {@link #end()} (it is harmless
 * after {@link #next()} returned false). One batch at a time per queue; the readers work only inside it, on the
 * thread that started it. A close from another thread waits for the batch to end; a close from inside it is refused.
 * On a {@link ThreadConfinement#CONFINED} queue only its owner may poll; every call from another thread is a
 * {@link WrongThreadException}.
 */
@SuppressWarnings("restricted")
public final class ExtendedPoll {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final MethodHandle START_POLL = LINKER.downcallHandle(ibv_cq_ex.start_poll.descriptor(), CRITICAL);
    /** {@code uint32_t (*)(struct ibv_cq_ex *)}: every 32-bit reader. */
    private static final MethodHandle INT_OF_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS), CRITICAL);
    /** {@code uint64_t (*)(struct ibv_cq_ex *)}: the timestamp readers. */
    private static final MethodHandle LONG_OF_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS), CRITICAL);
    private static final MethodHandle END_POLL = LINKER.downcallHandle(ibv_cq_ex.end_poll.descriptor(), CRITICAL);
    private static final MethodHandle BYTE_OF_CQ = LINKER.downcallHandle(ibv_cq_ex.read_sl.descriptor(), CRITICAL);
    private static final MethodHandle SHORT_OF_CQ = LINKER.downcallHandle(ibv_cq_ex.read_slid.descriptor(), CRITICAL);
    private static final int ENOENT = 2;
    private static final long STATUS = ibv_cq_ex.status$offset();
    private static final long WR_ID = ibv_cq_ex.wr_id$offset();

    private final CompletionQueue owner;
    private final MemorySegment cq;
    private final Set<WcField> fields;
    private final MemorySegment attr;
    private final MemorySegment startPoll;
    private final MemorySegment endPoll;
    private final MemorySegment readOpcode;
    private final MemorySegment readVendorErr;
    private final MemorySegment readByteLen;
    private final MemorySegment readImmData;
    private final MemorySegment readQpNum;
    private final MemorySegment readSrcQp;
    private final MemorySegment readWcFlags;
    private final MemorySegment readSlid;
    private final MemorySegment readSl;
    private final MemorySegment readCompletionTs;
    private final MemorySegment readCompletionWallclockNs;

    private final Batch batch;

    /** {@code thread}: the thread the queue is confined to, or null when it is shared. */
    ExtendedPoll(CompletionQueue owner, Thread thread, MemorySegment cq, Set<WcField> fields) {
        this.owner = owner;
        this.batch = new Batch(owner.guard, thread, "end()");
        this.cq = cq.reinterpret(ibv_cq_ex.sizeof());
        this.fields = fields;
        this.attr = ibv_poll_cq_attr.allocate(Arena.ofAuto());
        MemorySegment c = this.cq;
        this.startPoll = ibv_cq_ex.start_poll(c);
        this.endPoll = ibv_cq_ex.end_poll(c);
        this.readOpcode = ibv_cq_ex.read_opcode(c);
        this.readVendorErr = ibv_cq_ex.read_vendor_err(c);
        this.readByteLen = ibv_cq_ex.read_byte_len(c);
        this.readImmData = ibv_cq_ex.read_imm_data(c);
        this.readQpNum = ibv_cq_ex.read_qp_num(c);
        this.readSrcQp = ibv_cq_ex.read_src_qp(c);
        this.readWcFlags = ibv_cq_ex.read_wc_flags(c);
        this.readSlid = ibv_cq_ex.read_slid(c);
        this.readSl = ibv_cq_ex.read_sl(c);
        this.readCompletionTs = ibv_cq_ex.read_completion_ts(c);
        this.readCompletionWallclockNs = ibv_cq_ex.read_completion_wallclock_ns(c);
        // Calling a NULL function pointer would crash: check once here what the hot path will call.
        requireFunction("start_poll", startPoll);
        requireFunction("end_poll", endPoll);
        requireFunction("read_opcode", readOpcode);
        requireFunction("read_vendor_err", readVendorErr);
        requireFunction("read_wc_flags", readWcFlags);
        for (WcField f : fields) {
            MemorySegment reader = switch (f) {
                case BYTE_LEN -> readByteLen;
                case IMM -> readImmData;
                case QP_NUM -> readQpNum;
                case SRC_QP -> readSrcQp;
                case SLID -> readSlid;
                case SL -> readSl;
                case DLID_PATH_BITS -> ibv_cq_ex.read_dlid_path_bits(c);
                case COMPLETION_TIMESTAMP -> readCompletionTs;
                case COMPLETION_TIMESTAMP_WALLCLOCK -> readCompletionWallclockNs;
            };
            requireFunction("the reader of " + f, reader);
        }
    }

    private static void requireFunction(String what, MemorySegment fn) {
        if (fn.equals(MemorySegment.NULL)) {
            throw new UnsupportedOperationException("the provider's extended CQ has no " + what);
        }
    }

    /** Whether the current thread has a batch open here: it holds the queue's lock. */
    boolean isOpenOnThisThread() {
        return batch.heldByCurrentThread();
    }

    /** Refuses a close of the queue from inside this thread's batch. */
    void checkClosable() {
        batch.checkClosable();
    }

    /**
     * {@code ibv_start_poll}: true and positioned on the first completion, or false when there is none. Until
     * {@link #end()} (or a {@link #next()} that returns false) the queue belongs to this thread: closing it from
     * another thread waits for that end.
     *
     * @return whether a completion is ready (and the batch open)
     * @throws IllegalStateException if the queue is closed, or a batch is already open on it (this thread's or
     *                               another's: one batch at a time per queue)
     * @throws WrongThreadException  if the queue is {@link ThreadConfinement#CONFINED} to another thread
     * @throws RdmaException         if the provider fails to poll
     */
    public boolean start() throws RdmaException {
        batch.begin();
        return advanced("ibv_start_poll", callStart());
    }

    /**
     * Moves to the next completion: true and positioned on it, or false when there is none (the batch is then
     * over; {@link #end()} does nothing more). Done as {@code ibv_end_poll} + {@code ibv_start_poll}, not
     * {@code ibv_next_poll}: providers disagree on what {@code next_poll} leaves behind when it finds nothing (rxe
     * releases the queue and moves its consumer index, so the {@code end_poll} verbs.h prescribes after it
     * skips a slot), while start/end pairs mean the same everywhere.
     *
     * @return whether another completion is ready
     * @throws IllegalStateException if this thread has no batch open
     * @throws RdmaException         if the provider fails to poll (the batch is then over)
     */
    public boolean next() throws RdmaException {
        checkHeld();
        callEnd();
        return advanced("ibv_start_poll", callStart());
    }

    /**
     * {@code ibv_end_poll}: releases the queue after a {@link #start()} or {@link #next()} that returned true;
     * does nothing when this thread has no batch open.
     */
    public void end() {
        if (batch.heldByCurrentThread()) {
            callEnd();
            batch.finish();
        }
    }

    private int callStart() {
        try {
            return (int) START_POLL.invokeExact(startPoll, cq, attr);
        } catch (Throwable t) {
            batch.finish();
            throw DataPath.rethrow(t);
        }
    }

    private void callEnd() {
        try {
            END_POLL.invokeExact(endPoll, cq);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
    }

    private void checkHeld() {
        batch.checkHeld();
    }

    /** True when positioned on a completion; false (and the hold released) when the queue is empty. */
    private boolean advanced(String verb, int rc) throws RdmaException {
        if (rc == 0) {
            return true;
        }
        batch.finish();
        if (rc == ENOENT) {
            return false;
        }
        throw Errno.exception(verb, Math.abs(rc));
    }

    /**
     * The {@code wr_id} of the current completion.
     *
     * @return the {@code wr_id}
     */
    public long id() {
        checkHeld();
        return cq.get(ValueLayout.JAVA_LONG, WR_ID);
    }

    /**
     * The current completion's status.
     *
     * @return the status
     */
    public WcStatus status() {
        checkHeld();
        return WcStatus.of(cq.get(ValueLayout.JAVA_INT, STATUS));
    }

    /**
     * What the current completion's request was; undefined for failed ones.
     *
     * @return the opcode
     */
    public WcOpcode opcode() {
        return WcOpcode.of(callInt(readOpcode));
    }

    /**
     * The device's own error code of a failed completion.
     *
     * @return the vendor error, 0 if none
     */
    public int vendorError() {
        return callInt(readVendorErr);
    }

    /**
     * Needs {@link WcField#BYTE_LEN}.
     *
     * @return the bytes received (or read)
     * @throws IllegalStateException if the queue was created without the field
     */
    public int byteLength() {
        require(WcField.BYTE_LEN);
        return callInt(readByteLen);
    }

    /**
     * The immediate data, host byte order. Needs {@link WcField#IMM}.
     *
     * @return the immediate data
     * @throws IllegalStateException if the queue was created without the field
     */
    public int immediate() {
        require(WcField.IMM);
        return Integer.reverseBytes(callInt(readImmData));
    }

    /**
     * Needs {@link WcField#QP_NUM}.
     *
     * @return the local queue pair number
     * @throws IllegalStateException if the queue was created without the field
     */
    public int qpNumber() {
        require(WcField.QP_NUM);
        return callInt(readQpNum);
    }

    /**
     * Needs {@link WcField#SRC_QP}.
     *
     * @return the sender's queue pair number (UD)
     * @throws IllegalStateException if the queue was created without the field
     */
    public int sourceQp() {
        require(WcField.SRC_QP);
        return callInt(readSrcQp);
    }

    /**
     * The {@code IBV_WC_*} flags (always available).
     *
     * @return the raw {@code wc_flags}
     */
    public int flags() {
        return callInt(readWcFlags);
    }

    /**
     * Needs {@link WcField#SLID}.
     *
     * @return the sender's 16-bit LID (UD on InfiniBand)
     * @throws IllegalStateException if the queue was created without the field
     */
    public int sourceLid() {
        require(WcField.SLID);
        checkHeld();
        try {
            return Short.toUnsignedInt((short) SHORT_OF_CQ.invokeExact(readSlid, cq));
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
    }

    /**
     * Needs {@link WcField#SL}.
     *
     * @return the service level, 0 to 15
     * @throws IllegalStateException if the queue was created without the field
     */
    public int serviceLevel() {
        require(WcField.SL);
        checkHeld();
        try {
            return Byte.toUnsignedInt((byte) BYTE_OF_CQ.invokeExact(readSl, cq));
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
    }

    /**
     * The device's completion timestamp, in device clock ticks. Needs {@link WcField#COMPLETION_TIMESTAMP}.
     *
     * @return the raw device clock value, to scale by {@link DeviceAttributesEx#hcaCoreClock()} (kHz)
     * @throws IllegalStateException if the queue was created without the field
     */
    public long completionTimestamp() {
        require(WcField.COMPLETION_TIMESTAMP);
        return callLong(readCompletionTs);
    }

    /**
     * The completion time in ns of wall clock. Needs {@link WcField#COMPLETION_TIMESTAMP_WALLCLOCK}.
     *
     * @return nanoseconds of the real-time clock
     * @throws IllegalStateException if the queue was created without the field
     */
    public long completionWallclockNanos() {
        require(WcField.COMPLETION_TIMESTAMP_WALLCLOCK);
        return callLong(readCompletionWallclockNs);
    }

    private void require(WcField field) {
        if (!fields.contains(field)) {
            throw new IllegalStateException("the queue was created without " + field + "; ask for it at creation");
        }
    }

    private int callInt(MemorySegment fn) {
        checkHeld();
        try {
            return (int) INT_OF_CQ.invokeExact(fn, cq);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
    }

    private long callLong(MemorySegment fn) {
        checkHeld();
        try {
            return (long) LONG_OF_CQ.invokeExact(fn, cq);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
    }
}
