package io.jrdma.rdmacm;

/**
 * A connection-manager event ({@code struct rdma_cm_event}), copied out and acknowledged as it was read, so that
 * nothing has to be released and no event is acknowledged twice.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=cm-event}
 *
 * @param type       what happened
 * @param status     0, a negative errno (e.g. -110 when a resolution timed out), or for {@link CmEventType#REJECTED}
 *                   the InfiniBand CM reject reason (28: the peer's application rejected)
 * @param id         the id it is about; for {@link CmEventType#CONNECT_REQUEST} a new id for the new connection
 * @param listenId   for {@link CmEventType#CONNECT_REQUEST}, the listening id it came to; else null
 * @param connection for connection events, what the peer offered and sent (private data included); else null
 * @param datagram   for UD and multicast events, where to send; else null
 */
public record CmEvent(CmEventType type, int status, CmId id, CmId listenId, ConnectionParameters connection,
                      UdParameters datagram) {

    /**
     * The private data the peer sent with this event (empty if none).
     *
     * @return a copy of the private data
     */
    public byte[] privateData() {
        return connection != null ? connection.privateData() : datagram != null ? datagram.privateData() : new byte[0];
    }

    /**
     * Whether it reports a failure: an error type or a non-zero status.
     *
     * @return whether the event is a failure
     */
    public boolean isFailure() {
        return status != 0 || switch (type) {
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED, MULTICAST_ERROR, DEVICE_REMOVAL -> true;
            default -> false;
        };
    }

    /**
     * For {@link CmEventType#REJECTED}: why, in words, from the InfiniBand CM reject reason in {@link #status()}.
     *
     * @return a short explanation; meaningless for other event types
     */
    public String rejectReason() {
        return switch (status) {
            case 1 -> "no QP available";
            case 3 -> "no resources";
            case 4 -> "timeout";
            case 5 -> "unsupported request";
            case 8 -> "no one listens there (invalid service ID)";
            case 9 -> "invalid transport type";
            case 10 -> "stale connection";
            case 28 -> "rejected by the peer's application";
            default -> "reject reason " + status;
        };
    }

    @Override
    public String toString() {
        return "CmEvent[" + type + (status != 0 ? ", status " + status : "") + ", " + id + "]";
    }
}
