package io.jrdma.nio;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * An echo through Netty's NIO transport, unchanged, on an event loop whose selector and channels come from a jrdma-nio
 * provider: the server writes back what it reads, the client sends a pattern and checks every byte that comes back.
 */
final class NettyEcho {
    private NettyEcho() {
    }

    /**
     * Runs the echo of {@code total} bytes through a server bound to {@code host}; returns the client's NIO channel
     * (closed by then), so that the caller can see which kind it was.
     */
    static SocketChannel run(RdmaSelectorProvider provider, String host, int total) throws Exception {
        EventLoopGroup group = new NioEventLoopGroup(1, (Runnable r) -> Thread.ofPlatform().daemon().unstarted(r),
                provider);
        try {
            Channel server = new ServerBootstrap().group(group)
                    .channelFactory(() -> new NioServerSocketChannel(provider))
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ctx.writeAndFlush(msg);
                                }
                            });
                        }
                    }).bind(host, 0).sync().channel();
            CompletableFuture<Long> received = new CompletableFuture<>();
            ExposedSocketChannel client = (ExposedSocketChannel) new Bootstrap().group(group)
                    .channelFactory(() -> new ExposedSocketChannel(provider))
                    .handler(new Checker(total, received)).connect(server.localAddress()).sync().channel();
            ByteBuf out = Unpooled.buffer(total);
            for (int i = 0; i < total; i++) {
                out.writeByte(Echo.patternByte(i));
            }
            client.writeAndFlush(out);
            assertEquals(total, Echo.await(received));
            client.close().sync();
            server.close().sync();
            return client.nio();
        } finally {
            group.shutdownGracefully().sync();
        }
    }

    /** Netty's client channel, with its NIO channel in view. */
    static final class ExposedSocketChannel extends NioSocketChannel {
        ExposedSocketChannel(RdmaSelectorProvider provider) {
            super(provider);
        }

        SocketChannel nio() {
            return javaChannel();
        }
    }

    /** Checks each byte that comes back against the pattern; completes with the count when all came. */
    private static final class Checker extends ChannelInboundHandlerAdapter {
        private final int total;
        private final CompletableFuture<Long> received;
        private long count;

        Checker(int total, CompletableFuture<Long> received) {
            this.total = total;
            this.received = received;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                while (in.isReadable()) {
                    byte b = in.readByte();
                    if (b != Echo.patternByte(count)) {
                        received.completeExceptionally(new AssertionError("byte " + count + " is " + b));
                        return;
                    }
                    count++;
                }
                if (count == total) {
                    received.complete(count);
                }
            } finally {
                in.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            received.completeExceptionally(cause);
            fail(cause);
        }
    }
}
