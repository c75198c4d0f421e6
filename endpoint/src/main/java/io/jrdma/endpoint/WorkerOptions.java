package io.jrdma.endpoint;

import java.time.Duration;

/**
 * How a {@link Worker} is set up. The worker's shared receive queue holds {@code credits * maxEndpoints} receive
 * buffers of {@code messageSize} bytes, registered once: every endpoint is granted {@code credits} of them, so a
 * peer can never send more than its share, and the worker refuses an endpoint beyond {@code maxEndpoints}. Its one
 * completion queue has room for all of those receives and every endpoint's send queue.
 *
 * <p>A send that gets no acknowledgement is retransmitted after {@code 4.096 us * 2^ackTimeout}, {@code retryCount}
 * times, then fails with {@code RETRY_EXC_ERR}; an endpoint idle for {@code keepalive} sends a small RDMA write, so a
 * dead idle peer is found within about {@code keepalive + (retryCount + 1) * 4.096 us * 2^ackTimeout}.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=options}
 *
 * @param messageSize  the largest message in bytes, and each receive buffer's size (64 B to 16 MiB)
 * @param credits      messages a peer may have unreleased at this side at once (1 to 4096)
 * @param maxEndpoints endpoints the worker holds at once (1 to 65536)
 * @param sendDepth    operations each endpoint has in flight at once (1 to 4096)
 * @param readDepth    RDMA reads and atomics in flight per endpoint, each way (1 to 16; the device may allow fewer)
 * @param keepalive    how long an endpoint may be idle before it checks its peer; {@link Duration#ZERO} never
 * @param ackTimeout   the ACK timeout exponent (1 to 31)
 * @param retryCount   transport retries before an operation fails (0 to 6; Soft-RoCE retries forever at 7)
 * @param spin         how long a worker's thread ({@link Worker#start started}, or an event loop that drives it)
 *                     busy-polls after its last work before it blocks
 * @param hugePages    whether the buffer pool takes its memory from 2 MiB huge pages
 * @param rendezvousMemory bytes of pooled buffers each endpoint's peer may hold at this side (16 MiB, the largest
 *                     message, to 1 TiB): its messages larger than {@code messageSize}, being written or not yet
 *                     released, and copies of the messages that arrived behind them (messages are handed over in
 *                     order); beyond it a further large message is not invited until the application releases
 *                     some, and the messages behind it keep their receive buffers, which slows the peer down
 * @param gatherPieces the most pieces of a {@link GatherList} the worker's queue pairs take in one send (1 to 16;
 *                     the device may allow fewer, see {@link Worker#maxGatherPieces()}). Each send entry of a queue
 *                     pair has room for that many, so a device may make every entry larger for more (Soft-RoCE's
 *                     grow past 4)
 */
public record WorkerOptions(int messageSize, int credits, int maxEndpoints, int sendDepth, int readDepth,
                            Duration keepalive, int ackTimeout, int retryCount, Duration spin, boolean hugePages,
                            long rendezvousMemory, int gatherPieces) {
    /**
     * Checks the ranges.
     *
     * @throws IllegalArgumentException if a value is out of the ranges above
     * @throws NullPointerException     if a duration is null
     */
    public WorkerOptions {
        range("messageSize", messageSize, 64, 16 << 20);
        range("credits", credits, 1, 4096);
        range("maxEndpoints", maxEndpoints, 1, 65536);
        range("sendDepth", sendDepth, 1, 4096);
        range("readDepth", readDepth, 1, 16);
        range("ackTimeout", ackTimeout, 1, 31);
        range("retryCount", retryCount, 0, 6);
        range("gatherPieces", gatherPieces, 1, GatherList.MAX_PIECES);
        if ((long) credits * maxEndpoints > 1 << 20) {
            throw new IllegalArgumentException("credits * maxEndpoints receive buffers must be at most 1 Mi, not "
                    + (long) credits * maxEndpoints);
        }
        if (rendezvousMemory < Rendezvous.MAX_MESSAGE || rendezvousMemory > 1L << 40) {
            throw new IllegalArgumentException("rendezvousMemory must be 16 MiB to 1 TiB, not " + rendezvousMemory);
        }
        if (keepalive.isNegative() || spin.isNegative()) {
            throw new IllegalArgumentException("keepalive and spin must not be negative");
        }
    }

    private static void range(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be " + min + " to " + max + ", not " + value);
        }
    }

    /**
     * 4 KiB messages, 32 credits, 128 endpoints (so 4096 receive buffers, 16 MiB), 64 operations and 8 reads in
     * flight per endpoint, a keepalive after 2 s idle, an ACK timeout of 67 ms with 6 retries, 50 us of spinning,
     * 32 MiB of large messages per endpoint, and gather lists of up to 4 pieces.
     *
     * @return the default options
     */
    public static WorkerOptions defaults() {
        return new WorkerOptions(4096, 32, 128, 64, 8, Duration.ofSeconds(2), 14, 6, Duration.ofNanos(50_000), false,
                32 << 20, 4);
    }

    /**
     * {@return the number of receive buffers the worker posts: {@code credits * maxEndpoints}}
     */
    public int receiveSlots() {
        return credits * maxEndpoints;
    }

    /**
     * A copy with another message size.
     *
     * @param bytes the largest message, 64 B to 16 MiB
     * @return the new options
     */
    public WorkerOptions withMessageSize(int bytes) {
        return new WorkerOptions(bytes, credits, maxEndpoints, sendDepth, readDepth, keepalive, ackTimeout,
                retryCount, spin, hugePages, rendezvousMemory, gatherPieces);
    }

    /**
     * A copy with other receive resources.
     *
     * @param credits      messages a peer may have unreleased at once
     * @param maxEndpoints endpoints at once
     * @return the new options
     */
    public WorkerOptions withCredits(int credits, int maxEndpoints) {
        return new WorkerOptions(messageSize, credits, maxEndpoints, sendDepth, readDepth, keepalive, ackTimeout,
                retryCount, spin, hugePages, rendezvousMemory, gatherPieces);
    }

    /**
     * A copy with other depths.
     *
     * @param sendDepth operations in flight per endpoint
     * @param readDepth reads and atomics in flight per endpoint
     * @return the new options
     */
    public WorkerOptions withDepths(int sendDepth, int readDepth) {
        return new WorkerOptions(messageSize, credits, maxEndpoints, sendDepth, readDepth, keepalive, ackTimeout,
                retryCount, spin, hugePages, rendezvousMemory, gatherPieces);
    }

    /**
     * A copy with other failure detection.
     *
     * @param keepalive  idle time before a check; {@link Duration#ZERO} never
     * @param ackTimeout the ACK timeout exponent
     * @param retryCount transport retries
     * @return the new options
     */
    public WorkerOptions withFailureDetection(Duration keepalive, int ackTimeout, int retryCount) {
        return new WorkerOptions(messageSize, credits, maxEndpoints, sendDepth, readDepth, keepalive, ackTimeout,
                retryCount, spin, hugePages, rendezvousMemory, gatherPieces);
    }

    /**
     * A copy with another spin time.
     *
     * @param spin how long a started worker busy-polls before blocking
     * @return the new options
     */
    public WorkerOptions withSpin(Duration spin) {
        return new WorkerOptions(messageSize, credits, maxEndpoints, sendDepth, readDepth, keepalive, ackTimeout,
                retryCount, spin, hugePages, rendezvousMemory, gatherPieces);
    }

    /**
     * A copy whose buffer pool uses huge pages or not.
     *
     * @param on whether to
     * @return the new options
     */
    public WorkerOptions withHugePages(boolean on) {
        return new WorkerOptions(messageSize, credits, maxEndpoints, sendDepth, readDepth, keepalive, ackTimeout,
                retryCount, spin, on, rendezvousMemory, gatherPieces);
    }

    /**
     * A copy with another bound on the large messages a peer may have this side hold.
     *
     * @param bytes per endpoint, 16 MiB to 1 TiB
     * @return the new options
     */
    public WorkerOptions withRendezvousMemory(long bytes) {
        return new WorkerOptions(messageSize, credits, maxEndpoints, sendDepth, readDepth, keepalive, ackTimeout,
                retryCount, spin, hugePages, bytes, gatherPieces);
    }

    /**
     * A copy whose queue pairs take gather lists of up to {@code pieces} pieces.
     *
     * @param pieces 1 to {@link GatherList#MAX_PIECES}
     * @return the new options
     */
    public WorkerOptions withGatherPieces(int pieces) {
        return new WorkerOptions(messageSize, credits, maxEndpoints, sendDepth, readDepth, keepalive, ackTimeout,
                retryCount, spin, hugePages, rendezvousMemory, pieces);
    }
}
