package io.jrdma.ibverbs;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The operation of a send work request ({@code enum ibv_wr_opcode}).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=send-opcode}
 */
public enum SendOpcode {
    /** Sends the gathered bytes to the peer, which consumes one posted receive. */
    SEND(IBV_WR_SEND(), IBV_QP_EX_WITH_SEND()),
    /** A SEND that also carries a 32-bit immediate value, reported in the peer's receive completion. */
    SEND_WITH_IMM(IBV_WR_SEND_WITH_IMM(), IBV_QP_EX_WITH_SEND_WITH_IMM()),
    /** A SEND that also invalidates the peer's memory window or region of the given rkey. */
    SEND_WITH_INV(IBV_WR_SEND_WITH_INV(), IBV_QP_EX_WITH_SEND_WITH_INV()),
    /** Writes the gathered bytes to the peer's memory at a remote address and rkey; the peer sees no completion. */
    RDMA_WRITE(IBV_WR_RDMA_WRITE(), IBV_QP_EX_WITH_RDMA_WRITE()),
    /** An RDMA WRITE that also consumes one of the peer's receives, which completes with the immediate value. */
    RDMA_WRITE_WITH_IMM(IBV_WR_RDMA_WRITE_WITH_IMM(), IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM()),
    /** Reads the peer's memory at a remote address and rkey into the local buffers. */
    RDMA_READ(IBV_WR_RDMA_READ(), IBV_QP_EX_WITH_RDMA_READ()),
    /** Atomically compares the peer's 8-byte word with a value and, if equal, swaps in another; the old value lands in the local buffer. */
    ATOMIC_CMP_AND_SWP(IBV_WR_ATOMIC_CMP_AND_SWP(), IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP()),
    /** Atomically adds to the peer's 8-byte word; the old value lands in the local buffer. */
    ATOMIC_FETCH_AND_ADD(IBV_WR_ATOMIC_FETCH_AND_ADD(), IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD()),
    /** Invalidates a local memory window or region by rkey. */
    LOCAL_INV(IBV_WR_LOCAL_INV(), IBV_QP_EX_WITH_LOCAL_INV()),
    /** Binds a type 2 memory window to a region (posted on the send queue). */
    BIND_MW(IBV_WR_BIND_MW(), IBV_QP_EX_WITH_BIND_MW());

    private final int value;
    private final long extendedFlag;

    SendOpcode(int value, long extendedFlag) {
        this.value = value;
        this.extendedFlag = extendedFlag;
    }

    /** Its {@code IBV_QP_EX_WITH_*} bit, for queue pairs built with extended send ops. */
    long extendedFlag() {
        return extendedFlag;
    }

    /**
     * The C value.
     *
     * @return the {@code enum ibv_wr_opcode} value
     */
    public int value() {
        return value;
    }

    /** The operands this operation reads from the request's {@code wr} union. */
    Operands operands() {
        return switch (this) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ -> Operands.RDMA;
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> Operands.ATOMIC;
            default -> Operands.NONE;
        };
    }

    /** Atomics move exactly 8 bytes to and from an 8-byte aligned remote address. */
    boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }
}
