package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * What an asynchronous event reports ({@code enum ibv_event_type}).
 *
 * <pre>{@code ctx.onAsyncEvent(e -> { if (e.type() == AsyncEventType.PORT_ERR) failover(); }); }</pre>
 */
@SuppressWarnings("restricted")
public enum AsyncEventType {
    CQ_ERR(IBV_EVENT_CQ_ERR()), QP_FATAL(IBV_EVENT_QP_FATAL()), QP_REQ_ERR(IBV_EVENT_QP_REQ_ERR()),
    QP_ACCESS_ERR(IBV_EVENT_QP_ACCESS_ERR()), COMM_EST(IBV_EVENT_COMM_EST()), SQ_DRAINED(IBV_EVENT_SQ_DRAINED()),
    PATH_MIG(IBV_EVENT_PATH_MIG()), PATH_MIG_ERR(IBV_EVENT_PATH_MIG_ERR()), DEVICE_FATAL(IBV_EVENT_DEVICE_FATAL()),
    PORT_ACTIVE(IBV_EVENT_PORT_ACTIVE()), PORT_ERR(IBV_EVENT_PORT_ERR()), LID_CHANGE(IBV_EVENT_LID_CHANGE()),
    PKEY_CHANGE(IBV_EVENT_PKEY_CHANGE()), SM_CHANGE(IBV_EVENT_SM_CHANGE()), SRQ_ERR(IBV_EVENT_SRQ_ERR()),
    SRQ_LIMIT_REACHED(IBV_EVENT_SRQ_LIMIT_REACHED()), QP_LAST_WQE_REACHED(IBV_EVENT_QP_LAST_WQE_REACHED()),
    CLIENT_REREGISTER(IBV_EVENT_CLIENT_REREGISTER()), GID_CHANGE(IBV_EVENT_GID_CHANGE()), WQ_FATAL(IBV_EVENT_WQ_FATAL()),
    /** A value this version of jrdma does not know. */
    UNKNOWN(-1);

    private final int value;

    AsyncEventType(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() {
        return value;
    }

    /** libibverbs' description ({@code ibv_event_type_str}), e.g. "port error". */
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
