package io.jrdma.nio;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A single-buffer read or write of a direct buffer allocates nothing of jrdma-nio's own once the JIT has compiled
 * it: no array around the buffer, no lambda, no iovec. Garbage per transfer is time per transfer in a latency-bound
 * loop (the collector's and the allocation's), so a change that brings some back fails here. What may remain is the
 * buffer's segment and its session ({@link java.lang.foreign.MemorySegment#ofBuffer}, 72 bytes a call), which the
 * JIT's escape analysis removes in some runs (0 bytes) but not in every one; so the bound is those, and the test
 * prints what it measured. Runs over TCP on the loopback, whose channels are the same classes as RDMA's but for the
 * socket calls.
 */
class SteadyStateAllocationTest {
    private static final int SIZE = 64;
    /** Enough round trips for the JIT's last tier to compile the path. */
    private static final int WARM_UP = 60_000;
    private static final int MEASURED = 20_000;
    /** Measured runs; a recompilation may allocate during one, so the best counts. */
    private static final int RUNS = 5;
    /** A direct buffer's segment and session, which a call may leave on the heap: a write's and a read's. */
    private static final long SEGMENTS_PER_ROUND_TRIP = 2 * 72;

    @Test
    void singleBufferReadsAndWritesOfDirectBuffersAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("", false);
        try (ServerSocketChannel server = provider.openServerSocketChannel()
                .bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel client = provider.openSocketChannel()) {
            client.connect(server.getLocalAddress());
            try (SocketChannel peer = server.accept()) {
                client.configureBlocking(false);
                peer.configureBlocking(false);
                ByteBuffer out = ByteBuffer.allocateDirect(SIZE);
                ByteBuffer in = ByteBuffer.allocateDirect(SIZE);
                // Heap buffers and vectored calls first, as an application may make them: the JIT's profiles
                // of the code they share with the measured path then hold their types and branches too.
                roundTrips(client, peer, ByteBuffer.allocate(SIZE), ByteBuffer.allocate(SIZE), WARM_UP);
                for (int i = 0; i < WARM_UP / 10; i++) {
                    client.write(new ByteBuffer[] {ByteBuffer.allocateDirect(SIZE / 2), ByteBuffer.allocate(SIZE / 2)});
                    ByteBuffer[] into = {ByteBuffer.allocate(SIZE / 2), ByteBuffer.allocateDirect(SIZE / 2)};
                    while (into[1].hasRemaining()) {
                        peer.read(into);
                    }
                }
                roundTrips(client, peer, out, in, WARM_UP);
                long best = Long.MAX_VALUE;
                for (int run = 0; run < RUNS && best > 0; run++) {
                    long before = threads.getCurrentThreadAllocatedBytes();
                    roundTrips(client, peer, out, in, MEASURED);
                    best = Math.min(best, threads.getCurrentThreadAllocatedBytes() - before);
                }
                // Before the single-buffer path, 192 bytes per round trip: an array and a lambda per call too.
                assertTrue(best <= MEASURED * SEGMENTS_PER_ROUND_TRIP, best + " bytes allocated over " + MEASURED
                        + " writes and reads of " + SIZE + " bytes: more than their buffers' segments");
                System.out.println("SteadyStateAllocationTest: " + best + " bytes allocated over " + MEASURED
                        + " round trips");
            }
        }
    }

    /** {@code count} times: {@code out} written whole by {@code from}, read whole into {@code in} by {@code to}. */
    private static void roundTrips(SocketChannel from, SocketChannel to, ByteBuffer out, ByteBuffer in, int count)
            throws Exception {
        for (int i = 0; i < count; i++) {
            out.clear();
            while (out.hasRemaining()) {
                from.write(out);
            }
            in.clear();
            while (in.hasRemaining()) {
                to.read(in);
            }
        }
    }
}
