package io.jrdma.ibverbs;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The completion fields an extended completion queue reports ({@code IBV_WC_EX_WITH_*}): ask only for what you
 * read, the device fills nothing else.
 *
 * <pre>{@code
 * CompletionQueue cq = ctx.createCompletionQueueEx(256, null, 0, WcField.BYTE_LEN, WcField.QP_NUM);
 * }</pre>
 */
public enum WcField {
    BYTE_LEN(IBV_WC_EX_WITH_BYTE_LEN()), IMM(IBV_WC_EX_WITH_IMM()), QP_NUM(IBV_WC_EX_WITH_QP_NUM()),
    SRC_QP(IBV_WC_EX_WITH_SRC_QP()), SLID(IBV_WC_EX_WITH_SLID()), SL(IBV_WC_EX_WITH_SL()),
    DLID_PATH_BITS(IBV_WC_EX_WITH_DLID_PATH_BITS()), COMPLETION_TIMESTAMP(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP()),
    COMPLETION_TIMESTAMP_WALLCLOCK(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK());

    private final long mask;

    WcField(int mask) {
        this.mask = mask;
    }

    /** The C bit. */
    public long mask() {
        return mask;
    }
}
