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
 * {@snippet class=io.jrdma.ibverbs.snippets.CompletionSnippets region=work-completions}
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

    /**
     * An array of {@code capacity} completions, freed when it becomes unreachable.
     *
     * @param capacity the most completions one poll returns, at least 1
     * @throws IllegalArgumentException if {@code capacity} is less than 1
     */
    public WorkCompletions(int capacity) {
        this(capacity, Arena.ofAuto());
    }

    /**
     * An array of {@code capacity} completions in {@code arena}.
     *
     * @param capacity the most completions one poll returns, at least 1
     * @param arena    where the array lives; once it is closed, polling into it fails
     * @throws IllegalArgumentException if {@code capacity} is less than 1
     */
    public WorkCompletions(int capacity, Arena arena) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, not " + capacity);
        }
        this.capacity = capacity;
        this.wcs = ibv_wc.allocateArray(capacity, arena);
    }

    /**
     * How many completions one poll can return.
     *
     * @return the capacity given at construction
     */
    public int capacity() {
        return capacity;
    }

    /**
     * The {@code wr_id} of the work request that completed.
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the {@code wr_id}
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public long id(int i) {
        return wcs.get(ValueLayout.JAVA_LONG, at(i) + WR_ID);
    }

    /**
     * Whether the request succeeded. Of a failed completion only the id, status, vendor error and QP number are
     * defined.
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the status
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public WcStatus status(int i) {
        return WcStatus.of(wcs.get(ValueLayout.JAVA_INT, at(i) + STATUS));
    }

    /**
     * What the completed request was; undefined (and usually {@link WcOpcode#UNKNOWN}) for failed ones.
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the opcode
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public WcOpcode opcode(int i) {
        return WcOpcode.of(wcs.get(ValueLayout.JAVA_INT, at(i) + OPCODE));
    }

    /**
     * The device's own error code of a failed completion, for its vendor's documentation.
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the vendor error, 0 if none
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public int vendorError(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + VENDOR_ERR);
    }

    /**
     * Bytes received (receive completions) or read.
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the number of bytes (for a UD receive, including the 40-byte GRH)
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public int byteLength(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + BYTE_LEN);
    }

    /**
     * The immediate data in host byte order; valid when {@link #hasImmediate(int)}.
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the immediate data
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public int immediate(int i) {
        return Integer.reverseBytes(wcs.get(ValueLayout.JAVA_INT, at(i) + IMM_DATA));
    }

    /**
     * The rkey a SEND_WITH_INV invalidated; valid when {@link #hasInvalidated(int)}.
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the invalidated rkey
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public int invalidatedRkey(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + IMM_DATA);
    }

    /**
     * Whether the completion carries immediate data ({@code IBV_WC_WITH_IMM}).
     *
     * @param i the index of the completion, below what the last poll returned
     * @return whether {@link #immediate(int)} is valid
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public boolean hasImmediate(int i) {
        return (flags(i) & ibverbs_h.IBV_WC_WITH_IMM()) != 0;
    }

    /**
     * Whether the completion reports an invalidated rkey ({@code IBV_WC_WITH_INV}).
     *
     * @param i the index of the completion, below what the last poll returned
     * @return whether {@link #invalidatedRkey(int)} is valid
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public boolean hasInvalidated(int i) {
        return (flags(i) & ibverbs_h.IBV_WC_WITH_INV()) != 0;
    }

    /**
     * Whether a GRH precedes the data in the receive buffer (UD).
     *
     * @param i the index of the completion, below what the last poll returned
     * @return whether the first {@link AddressHandle#GRH_BYTES} bytes of the buffer hold a GRH
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public boolean hasGrh(int i) {
        return (flags(i) & ibverbs_h.IBV_WC_GRH()) != 0;
    }

    /**
     * The completion's {@code IBV_WC_*} flags, as {@link #hasImmediate}, {@link #hasInvalidated} and
     * {@link #hasGrh} read them.
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the raw {@code wc_flags}
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public int flags(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + WC_FLAGS);
    }

    /**
     * The local QP number the completion belongs to.
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the 24-bit queue pair number
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public int qpNumber(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + QP_NUM);
    }

    /**
     * The sender's QP number (UD receives).
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the sender's queue pair number
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public int sourceQp(int i) {
        return wcs.get(ValueLayout.JAVA_INT, at(i) + SRC_QP);
    }

    /**
     * The P_Key index of the received message (GSI queue pairs).
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the P_Key index
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public int pkeyIndex(int i) {
        return Short.toUnsignedInt(wcs.get(ValueLayout.JAVA_SHORT, at(i) + PKEY_INDEX));
    }

    /**
     * The sender's LID (UD receives on InfiniBand; 0 on RoCE).
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the 16-bit LID
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
    public int sourceLid(int i) {
        return Short.toUnsignedInt(wcs.get(ValueLayout.JAVA_SHORT, at(i) + SLID));
    }

    /**
     * The service level of the received message (UD receives).
     *
     * @param i the index of the completion, below what the last poll returned
     * @return the service level, 0 to 15
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #capacity()}
     */
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
