package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The transport service of a queue pair ({@code enum ibv_qp_type}).
 *
 * <pre>{@code QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq).create(); }</pre>
 */
public enum QpType {
    /** Reliable connected: every operation, in order, acknowledged. */
    RC(IBV_QPT_RC()),
    /** Unreliable connected: SEND and RDMA WRITE, no acknowledgement. */
    UC(IBV_QPT_UC()),
    /** Unreliable datagram: SEND to any UD QP through an address handle, one MTU per message. */
    UD(IBV_QPT_UD()),
    RAW_PACKET(IBV_QPT_RAW_PACKET()), XRC_SEND(IBV_QPT_XRC_SEND()), XRC_RECV(IBV_QPT_XRC_RECV());

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() {
        return value;
    }

    static QpType of(int value) {
        QpType t = NativeEnums.of(values(), QpType::value, value, null);
        if (t == null) {
            throw new IllegalArgumentException("unknown ibv_qp_type " + value);
        }
        return t;
    }
}
