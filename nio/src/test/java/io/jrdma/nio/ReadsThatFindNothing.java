package io.jrdma.nio;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A child JVM's part of {@link SteadyStateAllocationTest}: a sender that fills the loopback connection until its
 * writes are refused, then a reader that drains it with non-blocking reads of a direct buffer, most of which find
 * nothing, in rounds; prints the bytes each read allocated in the round that allocated least, rounded down. Least,
 * not last: a recompilation late in a run may allocate for a while (a loaded host's JVM allocated 32 bytes a read in
 * its last round once in about 25), while a path that escapes its segment allocates in every round once compiled.
 */
final class ReadsThatFindNothing {
    private static final int SIZE = 64 * 1024;
    private static final int ROUNDS = 6;
    private static final int READS = 100_000;

    private ReadsThatFindNothing() {
    }

    public static void main(String[] args) throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (LoopbackPair pair = LoopbackPair.open()) {
            SocketChannel client = pair.client();
            SocketChannel peer = pair.peer();
            ByteBuffer out = ByteBuffer.allocateDirect(SIZE);
            ByteBuffer in = ByteBuffer.allocateDirect(SIZE);
            long perRead = Long.MAX_VALUE;
            for (int round = 0; round < ROUNDS; round++) {
                do {
                    out.clear();
                } while (client.write(out) > 0);
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < READS; i++) {
                    in.clear();
                    peer.read(in);
                }
                perRead = Math.min(perRead, (threads.getCurrentThreadAllocatedBytes() - before) / READS);
            }
            System.out.println("bytes allocated a read in the least round: " + perRead);
        }
    }
}
