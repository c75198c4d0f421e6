package io.jrdma.endpoint;

/**
 * What runs when an operation an {@link Endpoint} posted completes: the allocation-free alternative to the
 * {@link java.util.concurrent.CompletableFuture}s, in the style of NIO.2's
 * {@link java.nio.channels.CompletionHandler} but with a primitive result, so that completing boxes nothing. Both
 * methods run on the worker's thread, inside {@link Worker#progress()}: keep them short and never block in them.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=handler}
 *
 * @param <A> the type of the attachment handed back with the result
 */
public interface OperationHandler<A> {
    /**
     * The operation completed.
     *
     * @param value      bytes sent, written or read; for an atomic, the value the remote word held before it
     * @param attachment what the caller attached to the operation
     */
    void completed(long value, A attachment);

    /**
     * The operation failed: an {@link EndpointException} naming the completion status (a flushed operation of a
     * broken or closed endpoint says {@code WR_FLUSH_ERR}), or the reason the endpoint could not post it.
     *
     * @param failure    why
     * @param attachment what the caller attached to the operation
     */
    void failed(Throwable failure, A attachment);
}
