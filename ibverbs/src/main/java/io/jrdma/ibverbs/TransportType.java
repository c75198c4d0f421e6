package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The transport a device speaks ({@code enum ibv_transport_type}); Soft-RoCE reports {@link #IB}.
 *
 * <pre>{@code boolean iwarp = device.transportType() == TransportType.IWARP; }</pre>
 */
public enum TransportType {
    UNKNOWN(IBV_TRANSPORT_UNKNOWN()), IB(IBV_TRANSPORT_IB()), IWARP(IBV_TRANSPORT_IWARP()),
    USNIC(IBV_TRANSPORT_USNIC()), USNIC_UDP(IBV_TRANSPORT_USNIC_UDP()), UNSPECIFIED(IBV_TRANSPORT_UNSPECIFIED());

    private final int value;

    TransportType(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() {
        return value;
    }

    static TransportType of(int value) {
        return NativeEnums.of(values(), TransportType::value, value, UNKNOWN);
    }
}
