package io.jrdma.nio;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.jrdma.grpcecho.GrpcEchoService;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;

import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * gRPC calls through grpc-netty, unchanged, on event loops and channels of a jrdma-nio provider: the echo service
 * and its byte-for-byte checks of {@link GrpcEchoService}.
 */
final class GrpcEcho {
    private GrpcEcho() {
    }

    /**
     * Makes {@code calls} unary calls of about 100 kB to a server bound to {@code host}, then streams as many
     * messages of up to about 300 kB through one streaming call; the client's NIO channels.
     */
    static List<SocketChannel> run(RdmaSelectorProvider provider, String host, int calls) throws Exception {
        EventLoopGroup group = new NioEventLoopGroup(2, (Runnable r) -> Thread.ofPlatform().daemon().unstarted(r),
                provider);
        List<NettyEcho.ExposedSocketChannel> clientChannels = new CopyOnWriteArrayList<>();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(host, 0))
                .bossEventLoopGroup(group).workerEventLoopGroup(group)
                .channelFactory(() -> new NioServerSocketChannel(provider))
                .addService(GrpcEchoService.definition())
                .build().start();
        ManagedChannel channel = NettyChannelBuilder.forAddress(host, server.getPort()).usePlaintext()
                .eventLoopGroup(group).channelFactory(() -> {
                    NettyEcho.ExposedSocketChannel c = new NettyEcho.ExposedSocketChannel(provider);
                    clientChannels.add(c);
                    return c;
                }).build();
        try {
            GrpcEchoService.check(channel, calls);
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            group.shutdownGracefully().sync();
        }
        return clientChannels.stream().map(NettyEcho.ExposedSocketChannel::nio).toList();
    }
}
