package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * What a completed work request was ({@code enum ibv_wc_opcode}); receive-side values are {@link #RECV} and
 * {@link #RECV_RDMA_WITH_IMM}.
 *
 * <pre>{@code if (wcs.opcode(i) == WcOpcode.RECV) handleMessage(wcs.id(i), wcs.byteLength(i)); }</pre>
 */
public enum WcOpcode {
    SEND(IBV_WC_SEND()), RDMA_WRITE(IBV_WC_RDMA_WRITE()), RDMA_READ(IBV_WC_RDMA_READ()), COMP_SWAP(IBV_WC_COMP_SWAP()),
    FETCH_ADD(IBV_WC_FETCH_ADD()), BIND_MW(IBV_WC_BIND_MW()), LOCAL_INV(IBV_WC_LOCAL_INV()), TSO(IBV_WC_TSO()),
    ATOMIC_WRITE(IBV_WC_ATOMIC_WRITE()), RECV(IBV_WC_RECV()), RECV_RDMA_WITH_IMM(IBV_WC_RECV_RDMA_WITH_IMM()),
    TM_ADD(IBV_WC_TM_ADD()), TM_DEL(IBV_WC_TM_DEL()), TM_SYNC(IBV_WC_TM_SYNC()), TM_RECV(IBV_WC_TM_RECV()),
    TM_NO_TAG(IBV_WC_TM_NO_TAG()),
    /** A value this version of jrdma does not know (or an error completion, whose opcode is undefined). */
    UNKNOWN(-1);

    private static final WcOpcode[] BY_VALUE = NativeEnums.table(values(), WcOpcode::value, new WcOpcode[256]);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() {
        return value;
    }

    /** The opcode of C value {@code value}; allocation-free, for the poll loop. */
    public static WcOpcode of(int value) {
        return NativeEnums.lookup(BY_VALUE, value, UNKNOWN);
    }
}
