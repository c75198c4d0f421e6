package io.jrdma.ibverbs;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The completion fields an extended completion queue reports ({@code IBV_WC_EX_WITH_*}): ask only for what you
 * read, the device fills nothing else.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.CompletionSnippets region=extended-fields}
 */
public enum WcField {
    /** The number of bytes received (or read). */
    BYTE_LEN(IBV_WC_EX_WITH_BYTE_LEN()),
    /** The immediate value (or invalidated rkey) of a receive. */
    IMM(IBV_WC_EX_WITH_IMM()),
    /** The number of the local queue pair the completion belongs to. */
    QP_NUM(IBV_WC_EX_WITH_QP_NUM()),
    /** The sender's queue pair number (UD receives). */
    SRC_QP(IBV_WC_EX_WITH_SRC_QP()),
    /** The sender's LID (UD receives). */
    SLID(IBV_WC_EX_WITH_SLID()),
    /** The service level of the received message. */
    SL(IBV_WC_EX_WITH_SL()),
    /** The destination LID path bits of the received message. */
    DLID_PATH_BITS(IBV_WC_EX_WITH_DLID_PATH_BITS()),
    /** The device clock when the completion was written (ticks of {@link DeviceAttributesEx#hcaCoreClock()} kHz). */
    COMPLETION_TIMESTAMP(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP()),
    /** The completion time in nanoseconds of the real-time clock, when the device supports it. */
    COMPLETION_TIMESTAMP_WALLCLOCK(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK());

    private final long mask;

    WcField(int mask) {
        this.mask = mask;
    }

    /**
     * The C bit.
     *
     * @return the {@code IBV_WC_EX_WITH_*} value
     */
    public long mask() {
        return mask;
    }
}
