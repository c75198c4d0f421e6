package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The transport a device speaks ({@code enum ibv_transport_type}); Soft-RoCE reports {@link #IB}.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=transport-type}
 */
public enum TransportType {
    /** Unknown transport, or a value this version of jrdma does not know. */
    UNKNOWN(IBV_TRANSPORT_UNKNOWN()),
    /** InfiniBand transport, also used by RoCE (including Soft-RoCE). */
    IB(IBV_TRANSPORT_IB()),
    /** iWARP (RDMA over TCP). */
    IWARP(IBV_TRANSPORT_IWARP()),
    /** Cisco usNIC. */
    USNIC(IBV_TRANSPORT_USNIC()),
    /** Cisco usNIC over UDP. */
    USNIC_UDP(IBV_TRANSPORT_USNIC_UDP()),
    /** A transport the kernel does not classify (e.g. EFA). */
    UNSPECIFIED(IBV_TRANSPORT_UNSPECIFIED());

    private final int value;

    TransportType(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    static TransportType of(int value) {
        return NativeEnums.of(values(), TransportType::value, value, UNKNOWN);
    }
}
