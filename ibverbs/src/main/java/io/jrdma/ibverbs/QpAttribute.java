package io.jrdma.ibverbs;

import java.util.Set;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The attributes {@code ibv_modify_qp} changes, one per {@code IBV_QP_*} mask bit: what a {@link QpAttributes} sets
 * and what {@link QpTransitions} requires or allows.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=qp-modify}
 */
public enum QpAttribute {
    /** {@code IBV_QP_STATE}: the state to move to. */
    STATE(IBV_QP_STATE()),
    /** {@code IBV_QP_CUR_STATE}: the state the caller believes the queue pair is in. */
    CUR_STATE(IBV_QP_CUR_STATE()),
    /** {@code IBV_QP_EN_SQD_ASYNC_NOTIFY}: report {@link AsyncEventType#SQ_DRAINED} once SQD is reached. */
    EN_SQD_ASYNC_NOTIFY(IBV_QP_EN_SQD_ASYNC_NOTIFY()),
    /** {@code IBV_QP_ACCESS_FLAGS}: what remote peers may do. */
    ACCESS_FLAGS(IBV_QP_ACCESS_FLAGS()),
    /** {@code IBV_QP_PKEY_INDEX}: the primary path's P_Key index. */
    PKEY_INDEX(IBV_QP_PKEY_INDEX()),
    /** {@code IBV_QP_PORT}: the primary path's local port. */
    PORT(IBV_QP_PORT()),
    /** {@code IBV_QP_QKEY}: the Q_Key (UD). */
    QKEY(IBV_QP_QKEY()),
    /** {@code IBV_QP_AV}: the primary path's address vector. */
    AV(IBV_QP_AV()),
    /** {@code IBV_QP_PATH_MTU}: the path MTU. */
    PATH_MTU(IBV_QP_PATH_MTU()),
    /** {@code IBV_QP_TIMEOUT}: the primary path's local ACK timeout. */
    TIMEOUT(IBV_QP_TIMEOUT()),
    /** {@code IBV_QP_RETRY_CNT}: retries on timeout. */
    RETRY_CNT(IBV_QP_RETRY_CNT()),
    /** {@code IBV_QP_RNR_RETRY}: retries on RNR NAK. */
    RNR_RETRY(IBV_QP_RNR_RETRY()),
    /** {@code IBV_QP_RQ_PSN}: the first receive PSN. */
    RQ_PSN(IBV_QP_RQ_PSN()),
    /** {@code IBV_QP_MAX_QP_RD_ATOMIC}: outstanding RDMA READs/atomics as initiator. */
    MAX_QP_RD_ATOMIC(IBV_QP_MAX_QP_RD_ATOMIC()),
    /** {@code IBV_QP_ALT_PATH}: the alternate path (address vector, P_Key index, port, timeout). */
    ALT_PATH(IBV_QP_ALT_PATH()),
    /** {@code IBV_QP_MIN_RNR_TIMER}: the RNR NAK timer this side asks senders to wait. */
    MIN_RNR_TIMER(IBV_QP_MIN_RNR_TIMER()),
    /** {@code IBV_QP_SQ_PSN}: the first send PSN. */
    SQ_PSN(IBV_QP_SQ_PSN()),
    /** {@code IBV_QP_MAX_DEST_RD_ATOMIC}: outstanding RDMA READs/atomics as responder. */
    MAX_DEST_RD_ATOMIC(IBV_QP_MAX_DEST_RD_ATOMIC()),
    /** {@code IBV_QP_PATH_MIG_STATE}: the path migration state. */
    PATH_MIG_STATE(IBV_QP_PATH_MIG_STATE()),
    /** {@code IBV_QP_DEST_QPN}: the remote queue pair number (RC, UC). */
    DEST_QPN(IBV_QP_DEST_QPN());

    private final int mask;

    QpAttribute(int mask) {
        this.mask = mask;
    }

    /** {@return the {@code IBV_QP_*} bit} */
    public int mask() {
        return mask;
    }

    static int maskOf(Set<QpAttribute> attributes) {
        int m = 0;
        for (QpAttribute a : attributes) {
            m |= a.mask;
        }
        return m;
    }
}
