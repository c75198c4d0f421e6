/**
 * Asynchronous RDMA endpoints for middleware: a {@link io.jrdma.endpoint.Worker} (progress engine) per thread, and
 * {@link io.jrdma.endpoint.Endpoint}s on it with many operations in flight, connected by address through the
 * connection manager.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=worker}
 *
 * <p><b>Lifetimes.</b> The worker owns its protection domain, completion queue, shared receive queue, receive slab,
 * buffer pool and event channel; closing it aborts its endpoints and releases everything once their queues are
 * flushed. An endpoint releases its queue pair and CM id once it is disconnected and nothing of it is in flight
 * ({@link io.jrdma.endpoint.Endpoint#closeFuture()}). Close regions you registered with the worker's protection
 * domain before the worker.
 *
 * <p><b>Threads.</b> Everything runs on the worker's thread: handlers, the {@code tryX} operations,
 * {@link io.jrdma.endpoint.Worker#progress()} and {@link io.jrdma.endpoint.Worker#listen}. The future flavour of
 * every operation, {@link io.jrdma.endpoint.Worker#connect}, {@link io.jrdma.endpoint.Worker#execute},
 * {@link io.jrdma.endpoint.ReceivedMessage#release()} and the endpoints' {@code close}/{@code abort} may be called
 * from any thread, virtual ones too: they hand the work to the worker.
 *
 * <p><b>Errors.</b> Bad arguments are an {@link java.lang.IllegalArgumentException} before anything is posted; an
 * operation on an endpoint that is not open an {@link java.lang.IllegalStateException}; a worker-thread-only call
 * from another thread a {@link java.lang.WrongThreadException}. Operations that fail on the wire complete
 * exceptionally with an {@link io.jrdma.endpoint.EndpointException} naming the completion status; a peer's
 * misbehaviour (too many messages, no handshake) breaks only its own endpoint.
 */
package io.jrdma.endpoint;
