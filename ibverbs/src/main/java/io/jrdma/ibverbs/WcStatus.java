package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The status of a work completion ({@code enum ibv_wc_status}). Completion errors are data, not exceptions.
 *
 * <pre>{@code
 * if (wcs.status(i) != WcStatus.SUCCESS) log.warn("wr {} failed: {}", wcs.id(i), wcs.status(i).description());
 * }</pre>
 */
@SuppressWarnings("restricted")
public enum WcStatus {
    SUCCESS(IBV_WC_SUCCESS()), LOC_LEN_ERR(IBV_WC_LOC_LEN_ERR()), LOC_QP_OP_ERR(IBV_WC_LOC_QP_OP_ERR()),
    LOC_EEC_OP_ERR(IBV_WC_LOC_EEC_OP_ERR()), LOC_PROT_ERR(IBV_WC_LOC_PROT_ERR()), WR_FLUSH_ERR(IBV_WC_WR_FLUSH_ERR()),
    MW_BIND_ERR(IBV_WC_MW_BIND_ERR()), BAD_RESP_ERR(IBV_WC_BAD_RESP_ERR()), LOC_ACCESS_ERR(IBV_WC_LOC_ACCESS_ERR()),
    REM_INV_REQ_ERR(IBV_WC_REM_INV_REQ_ERR()), REM_ACCESS_ERR(IBV_WC_REM_ACCESS_ERR()), REM_OP_ERR(IBV_WC_REM_OP_ERR()),
    RETRY_EXC_ERR(IBV_WC_RETRY_EXC_ERR()), RNR_RETRY_EXC_ERR(IBV_WC_RNR_RETRY_EXC_ERR()),
    LOC_RDD_VIOL_ERR(IBV_WC_LOC_RDD_VIOL_ERR()), REM_INV_RD_REQ_ERR(IBV_WC_REM_INV_RD_REQ_ERR()),
    REM_ABORT_ERR(IBV_WC_REM_ABORT_ERR()), INV_EECN_ERR(IBV_WC_INV_EECN_ERR()),
    INV_EEC_STATE_ERR(IBV_WC_INV_EEC_STATE_ERR()), FATAL_ERR(IBV_WC_FATAL_ERR()),
    RESP_TIMEOUT_ERR(IBV_WC_RESP_TIMEOUT_ERR()), GENERAL_ERR(IBV_WC_GENERAL_ERR()), TM_ERR(IBV_WC_TM_ERR()),
    TM_RNDV_INCOMPLETE(IBV_WC_TM_RNDV_INCOMPLETE()),
    /** A value this version of jrdma does not know. */
    UNKNOWN(-1);

    private static final WcStatus[] BY_VALUE = NativeEnums.table(values(), WcStatus::value, new WcStatus[64]);

    private final int value;

    WcStatus(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() {
        return value;
    }

    /** libibverbs' own description ({@code ibv_wc_status_str}), e.g. "remote access error". */
    public String description() {
        return ibverbs_h.ibv_wc_status_str(value).reinterpret(128).getString(0);
    }

    /** The status of C value {@code value}; allocation-free, for the poll loop. */
    public static WcStatus of(int value) {
        return NativeEnums.lookup(BY_VALUE, value, UNKNOWN);
    }
}
