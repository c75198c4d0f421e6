package io.jrdma.tool.perf;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.QueuePair;

/**
 * How the two sides of {@code jrdma perf} find each other and connect their RC queue pairs: over a TCP exchange
 * ({@link TcpPerfLink}, perftest's default) or through rdma_cm ({@link CmPerfLink}, perftest's {@code -R}).
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=link}
 */
interface PerfLink extends AutoCloseable {

    /** A link for {@code options}: the server side waits here for its client when rdma_cm picks the device. */
    static PerfLink open(PerfOptions options) throws Exception {
        return options.rdmaCm() ? CmPerfLink.open(options) : TcpPerfLink.open(options);
    }

    /** The device the test runs on. */
    Context context();

    /** "Ethernet" or "IB". */
    String linkType();

    /** The GID index the queue pair uses, or -1 when it routes by LID or rdma_cm chose. */
    int gidIndex();

    /** Creates the queue pair the way this link will connect it. */
    QueuePair createQueuePair(QueuePair.Builder builder) throws Exception;

    /**
     * Tells the peer {@code mine} (this link adds the endpoint where it needs one), learns the peer's and brings
     * {@code qp} to RTS towards it; when this returns, both queue pairs are ready to receive.
     */
    PerfPeer connect(QueuePair qp, PerfPeer mine) throws Exception;

    /**
     * Waits asleep until the peer calls this too, as perftest's handshake on its TCP socket does, and returns true;
     * returns false at once when this link has no such channel (rdma_cm), and the caller synchronizes over the queue
     * pair instead. A side that sleeps here leaves the CPU to the peer's measurement and to the device's work.
     */
    boolean sync() throws Exception;

    /** The closing handshake: returns once the peer is done too, so that neither side's last packets are lost. */
    void finish() throws Exception;

    @Override
    void close() throws Exception;
}
