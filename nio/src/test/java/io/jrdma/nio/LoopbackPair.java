package io.jrdma.nio;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Two connected, non-blocking channels of the provider over TCP on the loopback (no rules match), whose channels are
 * the same classes as RDMA's but for the socket calls: for the allocation tests.
 *
 * @param server the listener, kept to be closed with the rest
 * @param client the connecting side
 * @param peer   the accepted side
 */
record LoopbackPair(ServerSocketChannel server, SocketChannel client, SocketChannel peer) implements AutoCloseable {

    static LoopbackPair open() throws IOException {
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("", false);
        ServerSocketChannel server = provider.openServerSocketChannel().bind(new InetSocketAddress("127.0.0.1", 0));
        SocketChannel client = provider.openSocketChannel();
        client.connect(server.getLocalAddress());
        SocketChannel peer = server.accept();
        client.configureBlocking(false);
        peer.configureBlocking(false);
        return new LoopbackPair(server, client, peer);
    }

    @Override
    public void close() throws IOException {
        try (server; client; peer) {
            // closes all three
        }
    }
}
