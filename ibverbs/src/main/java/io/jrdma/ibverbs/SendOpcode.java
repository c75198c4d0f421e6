package io.jrdma.ibverbs;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The operation of a send work request ({@code enum ibv_wr_opcode}).
 *
 * <pre>{@code wr.opcode(SendOpcode.RDMA_WRITE).rdma(remoteAddress, rkey); }</pre>
 */
public enum SendOpcode {
    SEND(IBV_WR_SEND(), IBV_QP_EX_WITH_SEND()),
    SEND_WITH_IMM(IBV_WR_SEND_WITH_IMM(), IBV_QP_EX_WITH_SEND_WITH_IMM()),
    SEND_WITH_INV(IBV_WR_SEND_WITH_INV(), IBV_QP_EX_WITH_SEND_WITH_INV()),
    RDMA_WRITE(IBV_WR_RDMA_WRITE(), IBV_QP_EX_WITH_RDMA_WRITE()),
    RDMA_WRITE_WITH_IMM(IBV_WR_RDMA_WRITE_WITH_IMM(), IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM()),
    RDMA_READ(IBV_WR_RDMA_READ(), IBV_QP_EX_WITH_RDMA_READ()),
    ATOMIC_CMP_AND_SWP(IBV_WR_ATOMIC_CMP_AND_SWP(), IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP()),
    ATOMIC_FETCH_AND_ADD(IBV_WR_ATOMIC_FETCH_AND_ADD(), IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD()),
    LOCAL_INV(IBV_WR_LOCAL_INV(), IBV_QP_EX_WITH_LOCAL_INV()),
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

    /** The C value. */
    public int value() {
        return value;
    }

    /** Atomics move exactly 8 bytes to and from an 8-byte aligned remote address. */
    boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }
}
