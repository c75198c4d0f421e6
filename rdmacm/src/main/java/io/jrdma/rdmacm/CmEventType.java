package io.jrdma.rdmacm;

import io.jrdma.bindings.rdmacm.rdma_cma_h;
import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.rdmacm.rdma_cma_h.*;

/**
 * The type of a connection-manager event ({@code enum rdma_cm_event_type}).
 *
 * <pre>{@code
 * if (type == CmEventType.REJECTED) log.warn("peer said no: {}", type.description());
 * }</pre>
 */
@SuppressWarnings("restricted")
public enum CmEventType {
    ADDR_RESOLVED(RDMA_CM_EVENT_ADDR_RESOLVED()), ADDR_ERROR(RDMA_CM_EVENT_ADDR_ERROR()),
    ROUTE_RESOLVED(RDMA_CM_EVENT_ROUTE_RESOLVED()), ROUTE_ERROR(RDMA_CM_EVENT_ROUTE_ERROR()),
    CONNECT_REQUEST(RDMA_CM_EVENT_CONNECT_REQUEST()), CONNECT_RESPONSE(RDMA_CM_EVENT_CONNECT_RESPONSE()),
    CONNECT_ERROR(RDMA_CM_EVENT_CONNECT_ERROR()), UNREACHABLE(RDMA_CM_EVENT_UNREACHABLE()),
    REJECTED(RDMA_CM_EVENT_REJECTED()), ESTABLISHED(RDMA_CM_EVENT_ESTABLISHED()),
    DISCONNECTED(RDMA_CM_EVENT_DISCONNECTED()), DEVICE_REMOVAL(RDMA_CM_EVENT_DEVICE_REMOVAL()),
    MULTICAST_JOIN(RDMA_CM_EVENT_MULTICAST_JOIN()), MULTICAST_ERROR(RDMA_CM_EVENT_MULTICAST_ERROR()),
    ADDR_CHANGE(RDMA_CM_EVENT_ADDR_CHANGE()), TIMEWAIT_EXIT(RDMA_CM_EVENT_TIMEWAIT_EXIT());

    private final int value;

    CmEventType(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() {
        return value;
    }

    /** librdmacm's own name for the event ({@code rdma_event_str}), e.g. {@code RDMA_CM_EVENT_ESTABLISHED}. */
    public String description() {
        return rdma_cma_h.rdma_event_str(value).reinterpret(64).getString(0);
    }

    /** The event type of C value {@code value}. */
    public static CmEventType of(int value) {
        CmEventType t = NativeEnums.of(values(), CmEventType::value, value, null);
        if (t == null) {
            throw new IllegalArgumentException("unknown rdma_cm_event_type " + value);
        }
        return t;
    }
}
