package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The state of a queue pair ({@code enum ibv_qp_state}): RESET → INIT → RTR → RTS, with SQD, SQE and ERR.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=qp-state}
 */
public enum QpState {
    /** Just created or reset: nothing can be posted. */
    RESET(IBV_QPS_RESET()),
    /** Initialized: receives can be posted, nothing is processed yet. */
    INIT(IBV_QPS_INIT()),
    /** Ready to receive: incoming messages are processed. */
    RTR(IBV_QPS_RTR()),
    /** Ready to send: both queues work. */
    RTS(IBV_QPS_RTS()),
    /** Send queue drained: new sends wait until the queue pair returns to RTS. */
    SQD(IBV_QPS_SQD()),
    /** Send queue error (unreliable transports): the send queue is flushed, receives still work. */
    SQE(IBV_QPS_SQE()),
    /** Error: every outstanding request completes with {@link WcStatus#WR_FLUSH_ERR}. */
    ERR(IBV_QPS_ERR()),
    /** A state the device did not report, or this version of jrdma does not know. */
    UNKNOWN(IBV_QPS_UNKNOWN());

    private final int value;

    QpState(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    static QpState of(int value) {
        return NativeEnums.of(values(), QpState::value, value, UNKNOWN);
    }
}
