package io.jrdma.nio;

import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A peer for a child JVM that streams {@link Echo#patternByte} over RDMA until it is killed. Arguments: {@code serve
 * ADDRESS} (listens there, prints {@code listening PORT}, streams to the first connection) or {@code connect ADDRESS
 * PORT}; it prints {@code streaming} once connected.
 */
final class StreamingPeer {
    private StreamingPeer() {
    }

    /**
     * Connects as {@code args} say and streams for ever.
     *
     * @param args {@code serve ADDRESS} or {@code connect ADDRESS PORT}
     * @throws Exception if the connection fails
     */
    public static void main(String[] args) throws Exception {
        RdmaSelectorProvider provider = DeviceSupport.rdmaProvider(args[1]);
        SocketChannel channel;
        if (args[0].equals("serve")) {
            ServerSocketChannel server = provider.openServerSocketChannel().bind(new InetSocketAddress(args[1], 0));
            System.out.println("listening " + ((InetSocketAddress) server.getLocalAddress()).getPort());
            channel = server.accept();
        } else {
            channel = provider.openSocketChannel();
            channel.connect(new InetSocketAddress(args[1], Integer.parseInt(args[2])));
        }
        System.out.println("streaming");
        new PatternStreams.Sender(0, Long.MAX_VALUE / 2).send(channel);
    }
}
