package io.jrdma.endpoint;

import io.jrdma.ibverbs.WcStatus;

import java.io.IOException;

/**
 * An operation of an {@link Endpoint} failed, or the endpoint broke or closed before it could run. When a work
 * completion said so, {@link #status()} names its status: {@code WR_FLUSH_ERR} for an operation flushed from a
 * queue pair that an earlier failure or a close had moved to the error state.
 */
public final class EndpointException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The completion status, or null when no completion is behind the failure. */
    private final transient WcStatus status;

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
        super(message, cause);
        this.status = status;
    }

    /**
     * {@return the work completion's status, or null if no completion reported this failure}
     */
    public WcStatus status() {
        return status;
    }
}
