package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * What an asynchronous event reports ({@code enum ibv_event_type}).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=async-listener}
 */
@SuppressWarnings("restricted")
public enum AsyncEventType {
    /** A completion queue overran or failed; names the queue. The queue is unusable. */
    CQ_ERR(IBV_EVENT_CQ_ERR()),
    /** A queue pair hit an error that is not tied to one work request; names the queue pair, now in ERR. */
    QP_FATAL(IBV_EVENT_QP_FATAL()),
    /** A queue pair received an invalid request (transport error at the responder); names the queue pair. */
    QP_REQ_ERR(IBV_EVENT_QP_REQ_ERR()),
    /** A peer's request broke the local access rights; names the queue pair. */
    QP_ACCESS_ERR(IBV_EVENT_QP_ACCESS_ERR()),
    /** A message arrived on a queue pair still in RTR: communication is established; names the queue pair. */
    COMM_EST(IBV_EVENT_COMM_EST()),
    /** A queue pair moved to SQD has no outstanding send requests left; names the queue pair. */
    SQ_DRAINED(IBV_EVENT_SQ_DRAINED()),
    /** A queue pair migrated to its alternate path; names the queue pair. */
    PATH_MIG(IBV_EVENT_PATH_MIG()),
    /** A queue pair failed to migrate to its alternate path; names the queue pair. */
    PATH_MIG_ERR(IBV_EVENT_PATH_MIG_ERR()),
    /** The device failed; every object of the context is unusable: close them and the context. */
    DEVICE_FATAL(IBV_EVENT_DEVICE_FATAL()),
    /** A port became active; names the port. */
    PORT_ACTIVE(IBV_EVENT_PORT_ACTIVE()),
    /** A port left the active state (link down); names the port. */
    PORT_ERR(IBV_EVENT_PORT_ERR()),
    /** A port's LID changed; names the port. */
    LID_CHANGE(IBV_EVENT_LID_CHANGE()),
    /** A port's P_Key table changed; names the port. */
    PKEY_CHANGE(IBV_EVENT_PKEY_CHANGE()),
    /** The subnet manager of a port changed; names the port. */
    SM_CHANGE(IBV_EVENT_SM_CHANGE()),
    /** A shared receive queue failed; names the queue, now unusable. */
    SRQ_ERR(IBV_EVENT_SRQ_ERR()),
    /** A shared receive queue fell below its armed limit ({@link SharedReceiveQueue#armLimit(int)}); names the queue. */
    SRQ_LIMIT_REACHED(IBV_EVENT_SRQ_LIMIT_REACHED()),
    /** A queue pair on a shared receive queue, in ERR, will consume no more receives from it; names the queue pair. */
    QP_LAST_WQE_REACHED(IBV_EVENT_QP_LAST_WQE_REACHED()),
    /** The subnet manager asks clients of a port to register again; names the port. */
    CLIENT_REREGISTER(IBV_EVENT_CLIENT_REREGISTER()),
    /** A port's GID table changed (e.g. an IP address was added to its netdev); names the port. */
    GID_CHANGE(IBV_EVENT_GID_CHANGE()),
    /** A work queue failed (jrdma creates none; reported without an object). */
    WQ_FATAL(IBV_EVENT_WQ_FATAL()),
    /** A value this version of jrdma does not know. */
    UNKNOWN(-1);

    private final int value;

    AsyncEventType(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    /**
     * libibverbs' description ({@code ibv_event_type_str}), e.g. "port error".
     *
     * @return the description
     */
    public String description() {
        return ibverbs_h.ibv_event_type_str(value).reinterpret(128).getString(0);
    }

    /** Whether the event names a queue pair, a completion queue, a shared receive queue or a port. */
    Element element() {
        return switch (this) {
            case CQ_ERR -> Element.CQ;
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                 QP_LAST_WQE_REACHED -> Element.QP;
            case SRQ_ERR, SRQ_LIMIT_REACHED -> Element.SRQ;
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE -> Element.PORT;
            default -> Element.NONE;
        };
    }

    enum Element { QP, CQ, SRQ, PORT, NONE }

    static AsyncEventType of(int value) {
        return NativeEnums.of(values(), AsyncEventType::value, value, UNKNOWN);
    }
}
