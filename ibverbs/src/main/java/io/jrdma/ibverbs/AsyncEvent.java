package io.jrdma.ibverbs;

/**
 * An asynchronous event of a device ({@code struct ibv_async_event}), already acknowledged. Exactly one of the
 * element fields is set, as the type says ({@link #port()} is 0 when it is not a port event).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=async-await}
 *
 * @param type               what happened
 * @param queuePair          the queue pair, for QP events
 * @param completionQueue    the completion queue, for CQ events
 * @param sharedReceiveQueue the shared receive queue, for SRQ events
 * @param port               the port number, for port events
 */
public record AsyncEvent(AsyncEventType type, QueuePair queuePair, CompletionQueue completionQueue,
                         SharedReceiveQueue sharedReceiveQueue, int port) {
}
