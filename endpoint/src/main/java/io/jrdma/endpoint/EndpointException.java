package io.jrdma.endpoint;

import io.jrdma.ibverbs.WcStatus;

import java.io.IOException;

/**
 * An operation of an {@link Endpoint} failed, or the endpoint broke or closed before it could run. When a work
 * completion said so, {@link #status()} names its status: {@code WR_FLUSH_ERR} for an operation flushed from a
 * queue pair that an earlier failure or a close had moved to the error state. When the peer's orderly disconnect
 * broke the endpoint because operations of this side were still outstanding, {@link #isPeerDisconnect()} says so:
 * what a socket reports as a reset when its peer closed with data on the way.
 */
public final class EndpointException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The completion status, or null when no completion is behind the failure. */
    private final transient WcStatus status;
    /** Whether the peer's orderly disconnect cut this side's operations off. */
    private final boolean peerDisconnect;

    /**
     * A failure without a completion status.
     *
     * @param message what failed
     */
    public EndpointException(String message) {
        this(message, null, null);
    }

    /**
     * A failure with a completion status and a cause.
     *
     * @param message what failed
     * @param status  the completion's status, or null
     * @param cause   what caused it, or null
     */
    public EndpointException(String message, WcStatus status, Throwable cause) {
        this(message, status, cause, false);
    }

    private EndpointException(String message, WcStatus status, Throwable cause, boolean peerDisconnect) {
        super(message, cause);
        this.status = status;
        this.peerDisconnect = peerDisconnect;
    }

    /** The peer disconnected in order while operations of this side were outstanding. */
    static EndpointException peerDisconnect(String message) {
        return new EndpointException(message, null, null, true);
    }

    /**
     * {@return the work completion's status, or null if no completion reported this failure}
     */
    public WcStatus status() {
        return status;
    }

    /**
     * {@return whether the peer's orderly disconnect broke the endpoint, with operations of this side outstanding
     * (sent but not yet acknowledged, in the backlog, or a large message): they may or may not have reached the peer}
     */
    public boolean isPeerDisconnect() {
        return peerDisconnect;
    }
}
