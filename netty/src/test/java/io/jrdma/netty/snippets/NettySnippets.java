package io.jrdma.netty.snippets;

import io.jrdma.endpoint.WorkerOptions;
import io.jrdma.netty.RdmaIoHandler;
import io.jrdma.netty.RdmaServerSocketChannel;
import io.jrdma.netty.RdmaSocketChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** An echo server and its client over the transport, and a loop group for streams. */
final class NettySnippets {

    void echo(InetAddress deviceAddress) throws Exception {
        // @start region="echo"
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(deviceAddress));
        try {
            // As with any transport: one loop accepts, the group's loops take the accepted channels.
            Channel server = new ServerBootstrap().group(group.next(), group).channel(RdmaServerSocketChannel.class)
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ctx.write(msg);   // echo; the buffer is released once written
                        }

                        @Override
                        public void channelReadComplete(ChannelHandlerContext ctx) {
                            ctx.flush();
                        }
                    })
                    .bind(new InetSocketAddress(deviceAddress, 0)).sync().channel();
            Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .handler(new SimpleChannelInboundHandler<ByteBuf>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf echoed) {
                            System.out.println(echoed.toString(StandardCharsets.UTF_8));
                        }
                    })
                    .connect(server.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.copiedBuffer("hello", StandardCharsets.UTF_8));
            client.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully().sync();
        }
        // @end
    }

    EventLoopGroup streaming(InetAddress deviceAddress) {
        // @start region="streaming"
        // 64 KiB messages: both ends of a stream of 4 KiB writes need these options.
        WorkerOptions options = RdmaIoHandler.streamingOptions().withCredits(32, 64);   // 64 connections a loop
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(deviceAddress, options));
        // @end
        return group;
    }

    /** A handler that writes a large reply from registered memory, which its channel sends with no copy. */
    static final class Reply extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ((ByteBuf) msg).release();
            // @start region="allocator"
            // On the channel's loop, the channel's allocator (RdmaByteBufAllocator) gives registered memory.
            ByteBuf reply = ctx.alloc().directBuffer(64 << 10);
            reply.writeZero(reply.capacity());
            ctx.writeAndFlush(reply);   // posted from where it lies; released once the peer has it
            // @end
        }
    }
}
