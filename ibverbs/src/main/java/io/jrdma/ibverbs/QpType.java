package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The transport service of a queue pair ({@code enum ibv_qp_type}).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=qp-type}
 */
public enum QpType {
    /** Reliable connected: every operation, in order, acknowledged. */
    RC(IBV_QPT_RC()),
    /** Unreliable connected: SEND and RDMA WRITE, no acknowledgement. */
    UC(IBV_QPT_UC()),
    /** Unreliable datagram: SEND to any UD QP through an address handle, one MTU per message. */
    UD(IBV_QPT_UD()),
    /** Raw Ethernet packets (needs {@code CAP_NET_RAW}). */
    RAW_PACKET(IBV_QPT_RAW_PACKET()),
    /** The sending side of an extended reliable connection. */
    XRC_SEND(IBV_QPT_XRC_SEND()),
    /** The receiving side of an extended reliable connection. */
    XRC_RECV(IBV_QPT_XRC_RECV());

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    /** {@return the C value} */
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
