package io.jrdma.nio;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A child JVM's part of {@link SteadyStateAllocationTest}: a sender that fills the loopback connection until its
 * writes are refused, then a reader that drains it with non-blocking reads of a direct buffer, most of which find
 * nothing, in rounds; prints the bytes the last round's reads allocated each, rounded down.
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
            long perRead = -1;
            for (int round = 0; round < ROUNDS; round++) {
                do {
                    out.clear();
                } while (client.write(out) > 0);
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < READS; i++) {
                    in.clear();
                    peer.read(in);
                }
                perRead = (threads.getCurrentThreadAllocatedBytes() - before) / READS;
            }
            System.out.println("bytes allocated a read in the last round: " + perRead);
        }
    }
}
