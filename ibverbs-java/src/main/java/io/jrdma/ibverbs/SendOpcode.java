package io.jrdma.ibverbs;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The operation of a send work request ({@code enum ibv_wr_opcode}).
 *
 * <pre>{@code wr.opcode(SendOpcode.RDMA_WRITE).rdma(remoteAddress, rkey); }</pre>
 */
public enum SendOpcode {
    SEND(IBV_WR_SEND()), SEND_WITH_IMM(IBV_WR_SEND_WITH_IMM()), SEND_WITH_INV(IBV_WR_SEND_WITH_INV()),
    RDMA_WRITE(IBV_WR_RDMA_WRITE()), RDMA_WRITE_WITH_IMM(IBV_WR_RDMA_WRITE_WITH_IMM()), RDMA_READ(IBV_WR_RDMA_READ()),
    ATOMIC_CMP_AND_SWP(IBV_WR_ATOMIC_CMP_AND_SWP()), ATOMIC_FETCH_AND_ADD(IBV_WR_ATOMIC_FETCH_AND_ADD()),
    LOCAL_INV(IBV_WR_LOCAL_INV()), BIND_MW(IBV_WR_BIND_MW());

    private final int value;

    SendOpcode(int value) {
        this.value = value;
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
