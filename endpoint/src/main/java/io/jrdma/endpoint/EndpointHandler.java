package io.jrdma.endpoint;

/**
 * What an {@link Endpoint} tells its application, on the worker's thread: messages (and RDMA writes with
 * immediate) the peer sent, that it can take more operations after it refused one, and that it broke or closed.
 * Every method but {@link #onMessage} has a default that does nothing.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=handler}
 */
public interface EndpointHandler {
    /**
     * A message arrived. It is borrowed: its receive buffer returns to the shared receive queue, and the peer gets
     * its credit back, only when {@link ReceivedMessage#release()} is called, here or later from any thread. Until
     * then the peer has one credit less: a receiver that keeps messages slows its sender down, never the others.
     *
     * @param endpoint the endpoint it came on
     * @param message  the message, valid until released
     */
    void onMessage(Endpoint endpoint, ReceivedMessage message);

    /**
     * The endpoint takes operations again after a {@code try} method refused one for want of credits or queue
     * slots.
     *
     * @param endpoint the endpoint
     */
    default void onWritable(Endpoint endpoint) {
    }

    /**
     * The endpoint broke: an operation failed (e.g. the peer stopped answering), the peer sent what the protocol
     * forbids, the peer disconnected while operations of this side were outstanding, or the connection manager
     * reported a failure (an accepted endpoint too, if the peer never completes the connection). Every operation in
     * flight then fails too. A peer that closes while nothing is outstanding is no error: only {@link #onClosed}
     * follows, and {@link Endpoint#isClosedByPeer()} says so.
     *
     * @param endpoint the endpoint
     * @param failure  what broke it
     */
    default void onError(Endpoint endpoint, Throwable failure) {
    }

    /**
     * The endpoint is closed and its resources released: by its own {@link Endpoint#close()} or
     * {@link Endpoint#abort()}, by the peer's disconnect, or after a failure.
     *
     * @param endpoint the endpoint
     */
    default void onClosed(Endpoint endpoint) {
    }
}
