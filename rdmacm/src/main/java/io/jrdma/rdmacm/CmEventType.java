package io.jrdma.rdmacm;

import io.jrdma.bindings.rdmacm.rdma_cma_h;
import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.rdmacm.rdma_cma_h.*;

/**
 * The type of a connection-manager event ({@code enum rdma_cm_event_type}).
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=event-type}
 */
@SuppressWarnings("restricted")
public enum CmEventType {
    /** The destination address was resolved to a local device and port: resolve the route next. */
    ADDR_RESOLVED(RDMA_CM_EVENT_ADDR_RESOLVED()),
    /** Address resolution failed (the status holds the negative errno). */
    ADDR_ERROR(RDMA_CM_EVENT_ADDR_ERROR()),
    /** The route to the destination was resolved: create the queue pair and connect. */
    ROUTE_RESOLVED(RDMA_CM_EVENT_ROUTE_RESOLVED()),
    /** Route resolution failed. */
    ROUTE_ERROR(RDMA_CM_EVENT_ROUTE_ERROR()),
    /** A peer asks to connect to a listening id; the event's id is the new connection's, to accept or reject. */
    CONNECT_REQUEST(RDMA_CM_EVENT_CONNECT_REQUEST()),
    /**
     * A reply to a connect on an id without a queue pair of its own; the application brings its queue pair up and
     * completes the connection itself ({@link CmId#establish()}).
     */
    CONNECT_RESPONSE(RDMA_CM_EVENT_CONNECT_RESPONSE()),
    /** The connection could not be established. */
    CONNECT_ERROR(RDMA_CM_EVENT_CONNECT_ERROR()),
    /** The peer did not answer the connect, or answered with an error (also a UD resolution that failed). */
    UNREACHABLE(RDMA_CM_EVENT_UNREACHABLE()),
    /** The peer rejected the connection, or nothing listens there; the status is the reject reason. */
    REJECTED(RDMA_CM_EVENT_REJECTED()),
    /** The connection is up (also: a UD destination was resolved). */
    ESTABLISHED(RDMA_CM_EVENT_ESTABLISHED()),
    /** The connection is down, by either side. */
    DISCONNECTED(RDMA_CM_EVENT_DISCONNECTED()),
    /** The device the id is bound to was removed: destroy the id. */
    DEVICE_REMOVAL(RDMA_CM_EVENT_DEVICE_REMOVAL()),
    /** A multicast join completed. */
    MULTICAST_JOIN(RDMA_CM_EVENT_MULTICAST_JOIN()),
    /** A multicast group failed; join it again. */
    MULTICAST_ERROR(RDMA_CM_EVENT_MULTICAST_ERROR()),
    /** The address the id is bound to moved to another device (e.g. a bonding failover). */
    ADDR_CHANGE(RDMA_CM_EVENT_ADDR_CHANGE()),
    /** The queue pair left the time-wait state after a disconnect and may be reused. */
    TIMEWAIT_EXIT(RDMA_CM_EVENT_TIMEWAIT_EXIT());

    private final int value;

    CmEventType(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    /**
     * librdmacm's own name for the event ({@code rdma_event_str}), e.g. {@code RDMA_CM_EVENT_ESTABLISHED}.
     *
     * @return the event's C name
     */
    public String description() {
        return rdma_cma_h.rdma_event_str(value).reinterpret(64).getString(0);
    }

    /**
     * The event type of C value {@code value}.
     *
     * @param value an {@code enum rdma_cm_event_type} value
     * @return the event type
     * @throws IllegalArgumentException for a value this version does not know
     */
    public static CmEventType of(int value) {
        CmEventType t = NativeEnums.of(values(), CmEventType::value, value, null);
        if (t == null) {
            throw new IllegalArgumentException("unknown rdma_cm_event_type " + value);
        }
        return t;
    }
}
