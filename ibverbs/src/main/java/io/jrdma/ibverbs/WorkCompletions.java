package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_wc;
import io.jrdma.bindings.ibverbs.ibverbs_h;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * A reusable array of work completions ({@code struct ibv_wc[]}) that {@link CompletionQueue#poll} fills in place.
 * Reading it allocates nothing: allocate one per polling thread and keep it (it is not thread-safe; the completion
 * queue is, and hands each completion to exactly one of the threads polling it).
 *
 * <pre>{@code
 * WorkCompletions wcs = new WorkCompletions(16);
 * int n = cq.poll(wcs);
 * for (int i = 0; i < n; i++) {
 *     if (wcs.status(i) != WcStatus.SUCCESS) throw new IOException(wcs.status(i).description());
 *     done(wcs.id(i), wcs.byteLength(i));
 * }
 * }</pre>
 */
public final class WorkCompletions {
    private static final long SIZE = ibv_wc.sizeof();
    private static final long WR_ID = ibv_wc.wr_id$offset();
    private static final long STATUS = ibv_wc.status$offset();
    private static final long OPCODE = ibv_wc.opcode$offset();
    private static final long VENDOR_ERR = ibv_wc.vendor_err$offset();
    private static final long BYTE_LEN = ibv_wc.byte_len$offset();
    private static final long IMM_DATA = ibv_wc.imm_data$offset();
    private static final long QP_NUM = ibv_wc.qp_num$offset();
    private static final long SRC_QP = ibv_wc.src_qp$offset();
    private static final long WC_FLAGS = ibv_wc.wc_flags$offset();
    private static final long PKEY_INDEX = ibv_wc.pkey_index$offset();
    private static final long SLID = ibv_wc.slid$offset();
    private static final long SL = ibv_wc.sl$offset();

    private final MemorySegment wcs;
    private final int capacity;

    /** An array of {@code capacity} completions, freed when it becomes unreachable. */
    public WorkCompletions(int capacity) {
        this(capacity, Arena.ofAuto());
    }

    /** An array of {@code capacity} completions in {@code arena}. */
    public WorkCompletions(int capacity, Arena arena) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, not " + capacity);
        }
        this.capacity = capacity;
        this.wcs = ibv_wc.allocateArray(capacity, arena);
    }

    /** How many completions one poll can return. */
    public int capacity() {
        return capacity;
    }

    /** The {@code wr_id} of the work request that completed. */
    public long id(int i) {
        return wcs.get(ValueLayout.JAVA_LONG, at(i) + WR_ID);
    }

    public WcStatus status(int i) {
        return WcStatus.of(wcs.get(ValueLayout.JAVA_INT, at(i) + STATUS));
    }

    /** What the completed request was; undefined (and usually {@link WcOpcode#UNKNOWN}) for failed ones. */
    public WcOpcode opcode(int i) {
        return WcOpcode.of(wcs.get(ValueLayout.JAVA_INT, at(i) + OPCODE));
    }

    public int vendorError(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + VENDOR_ERR);
    }

    /** Bytes received (receive completions) or read. */
    public int byteLength(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + BYTE_LEN);
    }

    /** The immediate data in host byte order; valid when {@link #hasImmediate(int)}. */
    public int immediate(int i) {
        return Integer.reverseBytes(wcs.get(ValueLayout.JAVA_INT, at(i) + IMM_DATA));
    }

    /** The rkey a SEND_WITH_INV invalidated; valid when {@link #hasInvalidated(int)}. */
    public int invalidatedRkey(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + IMM_DATA);
    }

    public boolean hasImmediate(int i) {
        return (flags(i) & ibverbs_h.IBV_WC_WITH_IMM()) != 0;
    }

    public boolean hasInvalidated(int i) {
        return (flags(i) & ibverbs_h.IBV_WC_WITH_INV()) != 0;
    }

    /** Whether a GRH precedes the data in the receive buffer (UD). */
    public boolean hasGrh(int i) {
        return (flags(i) & ibverbs_h.IBV_WC_GRH()) != 0;
    }

    public int flags(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + WC_FLAGS);
    }

    /** The local QP number the completion belongs to. */
    public int qpNumber(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + QP_NUM);
    }

    /** The sender's QP number (UD receives). */
    public int sourceQp(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + SRC_QP);
    }

    public int pkeyIndex(int i) {
        return Short.toUnsignedInt(wcs.get(ValueLayout.JAVA_SHORT, at(i) + PKEY_INDEX));
    }

    public int sourceLid(int i) {
        return Short.toUnsignedInt(wcs.get(ValueLayout.JAVA_SHORT, at(i) + SLID));
    }

    public int serviceLevel(int i) {
        return Byte.toUnsignedInt(wcs.get(ValueLayout.JAVA_BYTE, at(i) + SL));
    }

    /** The native array. */
    MemorySegment segment() {
        return wcs;
    }

    /** Completion {@code i}'s native struct. */
    MemorySegment slot(int i) {
        return wcs.asSlice(at(i), SIZE);
    }

    private long at(int i) {
        return Objects.checkIndex(i, capacity) * SIZE;
    }
}
