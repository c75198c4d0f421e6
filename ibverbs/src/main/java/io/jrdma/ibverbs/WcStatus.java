package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The status of a work completion ({@code enum ibv_wc_status}). Completion errors are data, not exceptions.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.CompletionSnippets region=wc-status}
 */
@SuppressWarnings("restricted")
public enum WcStatus {
    /** The work request completed. */
    SUCCESS(IBV_WC_SUCCESS()),
    /** A message was longer than the receive buffers (or the send exceeded the port's limits). */
    LOC_LEN_ERR(IBV_WC_LOC_LEN_ERR()),
    /** The local queue pair found an inconsistent work request (e.g. too many scatter/gather entries). */
    LOC_QP_OP_ERR(IBV_WC_LOC_QP_OP_ERR()),
    /** Local end-to-end context error (RD only; not reported by current devices). */
    LOC_EEC_OP_ERR(IBV_WC_LOC_EEC_OP_ERR()),
    /** A scatter/gather entry named memory outside its region, or a region lacking the local right needed. */
    LOC_PROT_ERR(IBV_WC_LOC_PROT_ERR()),
    /** The queue pair was in ERR: the request was flushed, not executed. Follows the first real error. */
    WR_FLUSH_ERR(IBV_WC_WR_FLUSH_ERR()),
    /** A memory window bind failed. */
    MW_BIND_ERR(IBV_WC_MW_BIND_ERR()),
    /** The responder answered with an unexpected transport opcode. */
    BAD_RESP_ERR(IBV_WC_BAD_RESP_ERR()),
    /** A protection error on a local buffer targeted by an incoming RDMA WRITE with immediate. */
    LOC_ACCESS_ERR(IBV_WC_LOC_ACCESS_ERR()),
    /** The responder found the request invalid, e.g. a message longer than its receive buffer. */
    REM_INV_REQ_ERR(IBV_WC_REM_INV_REQ_ERR()),
    /** The remote address, length or rkey was not allowed by the peer's region or window. */
    REM_ACCESS_ERR(IBV_WC_REM_ACCESS_ERR()),
    /** The responder could not complete the operation. */
    REM_OP_ERR(IBV_WC_REM_OP_ERR()),
    /** No acknowledgement within the retries of the transport timeout: the peer is gone or unreachable. */
    RETRY_EXC_ERR(IBV_WC_RETRY_EXC_ERR()),
    /** The peer had no receive posted for a SEND, through every receiver-not-ready retry. */
    RNR_RETRY_EXC_ERR(IBV_WC_RNR_RETRY_EXC_ERR()),
    /** Reliable-datagram domain violation (RD only; not reported by current devices). */
    LOC_RDD_VIOL_ERR(IBV_WC_LOC_RDD_VIOL_ERR()),
    /** Invalid reliable-datagram request at the responder (RD only). */
    REM_INV_RD_REQ_ERR(IBV_WC_REM_INV_RD_REQ_ERR()),
    /** The responder aborted the operation. */
    REM_ABORT_ERR(IBV_WC_REM_ABORT_ERR()),
    /** Invalid end-to-end context number (RD only). */
    INV_EECN_ERR(IBV_WC_INV_EECN_ERR()),
    /** Invalid end-to-end context state (RD only). */
    INV_EEC_STATE_ERR(IBV_WC_INV_EEC_STATE_ERR()),
    /** A fatal error of the device or transport. */
    FATAL_ERR(IBV_WC_FATAL_ERR()),
    /** The responder did not answer in time. */
    RESP_TIMEOUT_ERR(IBV_WC_RESP_TIMEOUT_ERR()),
    /** Any other error (provider specific). */
    GENERAL_ERR(IBV_WC_GENERAL_ERR()),
    /** A tag-matching operation failed. */
    TM_ERR(IBV_WC_TM_ERR()),
    /** A tag-matching rendezvous did not complete. */
    TM_RNDV_INCOMPLETE(IBV_WC_TM_RNDV_INCOMPLETE()),
    /** A value this version of jrdma does not know. */
    UNKNOWN(-1);

    private static final WcStatus[] BY_VALUE = NativeEnums.table(values(), WcStatus::value, new WcStatus[64]);

    private final int value;

    WcStatus(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    /**
     * libibverbs' own description ({@code ibv_wc_status_str}), e.g. "remote access error".
     *
     * @return the description
     */
    public String description() {
        return ibverbs_h.ibv_wc_status_str(value).reinterpret(128).getString(0);
    }

    /**
     * The status of C value {@code value}; allocation-free, for the poll loop.
     *
     * @param value an {@code enum ibv_wc_status} value
     * @return the status, {@link #UNKNOWN} for a value this version does not know
     */
    public static WcStatus of(int value) {
        return NativeEnums.lookup(BY_VALUE, value, UNKNOWN);
    }
}
