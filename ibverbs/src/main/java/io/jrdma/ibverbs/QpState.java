package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The state of a queue pair ({@code enum ibv_qp_state}): RESET → INIT → RTR → RTS, with SQD, SQE and ERR.
 *
 * <pre>{@code if (qp.state() == QpState.ERR) qp.reset(); }</pre>
 */
public enum QpState {
    RESET(IBV_QPS_RESET()), INIT(IBV_QPS_INIT()), RTR(IBV_QPS_RTR()), RTS(IBV_QPS_RTS()), SQD(IBV_QPS_SQD()),
    SQE(IBV_QPS_SQE()), ERR(IBV_QPS_ERR()), UNKNOWN(IBV_QPS_UNKNOWN());

    private final int value;

    QpState(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() {
        return value;
    }

    static QpState of(int value) {
        return NativeEnums.of(values(), QpState::value, value, UNKNOWN);
    }
}
