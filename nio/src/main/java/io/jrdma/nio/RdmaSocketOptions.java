package io.jrdma.nio;

import java.net.SocketOption;

/**
 * Socket options of rsockets that TCP has no counterpart for. The provider's socket and server socket channels
 * take them; on a channel that runs over TCP they are kept and read back but have no effect.
 *
 * {@snippet class=io.jrdma.nio.snippets.RemoteWriteSnippets region=option}
 */
public final class RdmaSocketOptions {
    /**
     * How many buffers the peer may map for this side to write into with {@link RdmaChannels#write} (rsockets'
     * {@code RDMA_IOMAPSIZE}): 0 to {@value #MAX_IOMAP_SIZE}, 0 by default. It is exchanged when the connection is
     * made, so set it before {@code connect}, or on the server channel before the connections it accepts arrive.
     */
    public static final SocketOption<Integer> IOMAP_SIZE = new RdmaOption("IOMAP_SIZE");

    /** The largest {@link #IOMAP_SIZE}: rsockets rounds larger values down. */
    public static final int MAX_IOMAP_SIZE = 128;

    private RdmaSocketOptions() {
    }

    private record RdmaOption(String name) implements SocketOption<Integer> {
        @Override
        public Class<Integer> type() {
            return Integer.class;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
