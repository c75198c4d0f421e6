package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * What a completed work request was ({@code enum ibv_wc_opcode}); receive-side values are {@link #RECV} and
 * {@link #RECV_RDMA_WITH_IMM}.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.CompletionSnippets region=wc-opcode}
 */
public enum WcOpcode {
    /** A SEND (with or without immediate or invalidate) completed at the sender. */
    SEND(IBV_WC_SEND()),
    /** An RDMA WRITE completed at the writer. */
    RDMA_WRITE(IBV_WC_RDMA_WRITE()),
    /** An RDMA READ completed: the data is in the local buffers. */
    RDMA_READ(IBV_WC_RDMA_READ()),
    /** An atomic compare-and-swap completed. */
    COMP_SWAP(IBV_WC_COMP_SWAP()),
    /** An atomic fetch-and-add completed. */
    FETCH_ADD(IBV_WC_FETCH_ADD()),
    /** A memory window bind completed. */
    BIND_MW(IBV_WC_BIND_MW()),
    /** A local invalidate completed. */
    LOCAL_INV(IBV_WC_LOCAL_INV()),
    /** A TCP segmentation offload send completed (raw packet queue pairs). */
    TSO(IBV_WC_TSO()),
    /** An atomic write completed. */
    ATOMIC_WRITE(IBV_WC_ATOMIC_WRITE()),
    /** A receive consumed an incoming SEND. */
    RECV(IBV_WC_RECV()),
    /** A receive consumed an incoming RDMA WRITE with immediate (the data went to the written region). */
    RECV_RDMA_WITH_IMM(IBV_WC_RECV_RDMA_WITH_IMM()),
    /** A tag-matching add completed. */
    TM_ADD(IBV_WC_TM_ADD()),
    /** A tag-matching delete completed. */
    TM_DEL(IBV_WC_TM_DEL()),
    /** A tag-matching sync completed. */
    TM_SYNC(IBV_WC_TM_SYNC()),
    /** A tag-matched receive completed. */
    TM_RECV(IBV_WC_TM_RECV()),
    /** A receive that matched no tag completed. */
    TM_NO_TAG(IBV_WC_TM_NO_TAG()),
    /** A value this version of jrdma does not know (or an error completion, whose opcode is undefined). */
    UNKNOWN(-1);

    private static final WcOpcode[] BY_VALUE = NativeEnums.table(values(), WcOpcode::value, new WcOpcode[256]);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    /**
     * The opcode of C value {@code value}; allocation-free, for the poll loop.
     *
     * @param value an {@code enum ibv_wc_opcode} value
     * @return the opcode, {@link #UNKNOWN} for a value this version does not know
     */
    public static WcOpcode of(int value) {
        return NativeEnums.lookup(BY_VALUE, value, UNKNOWN);
    }
}
