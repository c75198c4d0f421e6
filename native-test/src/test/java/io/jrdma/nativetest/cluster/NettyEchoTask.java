package io.jrdma.nativetest.cluster;

import io.jrdma.netty.RdmaIoHandler;
import io.jrdma.netty.RdmaServerSocketChannel;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * The far end of a cross-node Netty test: a jrdma-netty server that accepts one channel on ADDRESS:PORT, writes every
 * buffer back as it came (flushed when a read completes), until the client closes, and reports the bytes and their
 * CRC-32 as it received them. Arguments: ADDRESS PORT KEEPALIVE_MILLIS ACK_TIMEOUT RETRY_COUNT.
 */
final class NettyEchoTask implements NodeTask {
    private static final class Echo extends ChannelInboundHandlerAdapter {
        final CRC32 crc = new CRC32();
        long bytes;
        final CompletableFuture<Void> closed = new CompletableFuture<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            for (ByteBuffer part : b.nioBuffers()) {
                crc.update(part);
            }
            bytes += b.readableBytes();
            ctx.write(b);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            closed.complete(null);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            closed.completeExceptionally(cause);
            ctx.close();
        }
    }

    static EventLoopGroup group(InetAddress address, long keepaliveMillis, int ackTimeout, int retryCount) {
        return new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(address, RdmaIoHandler.defaultOptions()
                .withFailureDetection(Duration.ofMillis(keepaliveMillis), ackTimeout, retryCount)));
    }

    @Override
    public String run(List<String> args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(args.get(0)),
                Integer.parseInt(args.get(1)));
        Echo echo = new Echo();
        EventLoopGroup group = group(address.getAddress(), Long.parseLong(args.get(2)), Integer.parseInt(args.get(3)),
                Integer.parseInt(args.get(4)));
        try {
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(echo);
                        }
                    }).bind(address).sync().channel();
            echo.closed.get(900, TimeUnit.SECONDS);
            server.close().sync();
            CompletableFuture<String> result = new CompletableFuture<>();
            group.next().execute(() -> result.complete(StreamResult.format(echo.bytes, echo.crc.getValue())));
            return result.get(60, TimeUnit.SECONDS);
        } finally {
            group.shutdownGracefully(0, 10, TimeUnit.SECONDS).sync();
        }
    }
}
