package io.jrdma.nio;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.Channel;
import java.nio.channels.SocketChannel;
import java.util.Objects;

/**
 * What the provider's channels do beyond {@code java.nio}: tell whether a channel runs over RDMA, and write
 * straight into memory the peer mapped ({@link IoMapping}), as rsockets' {@code riowrite} does.
 *
 * {@snippet class=io.jrdma.nio.snippets.RemoteWriteSnippets region=write}
 */
public final class RdmaChannels {
    private RdmaChannels() {
    }

    /**
     * Whether {@code channel} is a socket or server socket channel of {@link RdmaSelectorProvider} over RDMA.
     *
     * @param channel any channel
     * @return true if it runs over RDMA
     */
    public static boolean isRdma(Channel channel) {
        if (channel instanceof SocketChannelImpl socket) {
            return socket.isRdma();
        }
        return channel instanceof ServerSocketChannelImpl server && server.nativeSocket().transport().isRdma();
    }

    /**
     * Writes {@code source} into the peer's mapped memory at {@code offset} (see {@link IoMapping}), with no
     * receive on the peer's side. In blocking mode it waits until at least one byte is written; in non-blocking
     * mode it may write none. Keep each write inside one mapping of the peer: rsockets does not stop cleanly at
     * a mapping's end (it posts empty writes until its send queue is full, then returns what it wrote).
     *
     * @param channel a connected channel of {@link RdmaSelectorProvider} that runs over RDMA
     * @param source  native memory
     * @param offset  where in the peer's mappings the first byte goes
     * @return the bytes written, from the start of {@code source}
     * @throws IllegalArgumentException if {@code channel} is not such a channel, {@code source} is not native or
     *                                  {@code offset} is negative
     * @throws java.nio.channels.NotYetConnectedException if it is not connected yet
     * @throws java.nio.channels.ClosedChannelException if it is closed or its output is shut down
     * @throws IOException if {@code offset} is in no mapping of the peer, or the connection failed
     */
    public static long write(SocketChannel channel, MemorySegment source, long offset) throws IOException {
        SocketChannelImpl rdma = rdmaChannel(channel);
        Objects.requireNonNull(source, "source");
        if (!source.isNative()) {
            throw new IllegalArgumentException("source must be native memory");
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset cannot be negative: " + offset);
        }
        return rdma.writeRemote(source, offset);
    }

    /** {@code channel} as the provider's RDMA channel, or an exception saying why it is not one. */
    static SocketChannelImpl rdmaChannel(SocketChannel channel) {
        Objects.requireNonNull(channel, "channel");
        if (!(channel instanceof SocketChannelImpl rdma)) {
            throw new IllegalArgumentException(channel + " is not a channel of " + RdmaSelectorProvider.class.getName());
        }
        if (rdma.isConnected() && !rdma.isRdma()) {
            throw new IllegalArgumentException(channel + " runs over TCP, not RDMA");
        }
        return rdma;
    }
}
