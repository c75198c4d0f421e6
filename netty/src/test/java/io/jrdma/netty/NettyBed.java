package io.jrdma.netty;

import io.jrdma.endpoint.WorkerOptions;
import io.jrdma.ibverbs.Device;
import io.jrdma.junit.DeviceAddresses;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A server loop group of one loop and a client loop group, both of {@link RdmaIoHandler}s on the device, with
 * nothing but Netty's bootstraps to make channels.
 */
final class NettyBed implements AutoCloseable {
    /** 4 KiB messages, 32 credits and at most 16 connections per loop: 2 MiB of receive buffers per worker. */
    static final WorkerOptions OPTIONS = RdmaIoHandler.defaultOptions().withCredits(32, 16);

    final InetAddress ip;
    final EventLoopGroup serverGroup;
    final EventLoopGroup clientGroup;
    /** The server's child group: its own loop unless {@link #childLoops} gave it others. */
    EventLoopGroup childGroup;

    NettyBed(Device device, int clientLoops) throws IOException {
        this(device, clientLoops, OPTIONS, OPTIONS);
    }

    NettyBed(Device device, int clientLoops, WorkerOptions server, WorkerOptions client) throws IOException {
        ip = DeviceAddresses.ipv4(device);
        serverGroup = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(ip, server));
        clientGroup = new MultiThreadIoEventLoopGroup(clientLoops, RdmaIoHandler.newFactory(ip, client));
    }

    /** Gives the servers' accepted channels a group of {@code loops} loops of their own (with the servers' options). */
    NettyBed childLoops(int loops, WorkerOptions options) throws IOException {
        childGroup = new MultiThreadIoEventLoopGroup(loops, RdmaIoHandler.newFactory(ip, options));
        return this;
    }

    /** {@return the registered buffer {@code buffer} is or wraps (a leak tracker, a slice, a duplicate), or null} */
    static RegisteredByteBuf registered(ByteBuf buffer) {
        ByteBuf b = buffer;
        while (b != null && !(b instanceof RegisteredByteBuf)) {
            b = b.unwrap();
        }
        return (RegisteredByteBuf) b;
    }

    /** A server whose every accepted channel gets {@code handlers}' handlers, reading at once or not. */
    Channel serve(Supplier<ChannelHandler[]> handlers, boolean autoRead) throws InterruptedException {
        EventLoop boss = serverGroup.next();
        return new ServerBootstrap().group(boss, childGroup != null ? childGroup : boss)
                .channel(RdmaServerSocketChannel.class)
                .childOption(ChannelOption.AUTO_READ, autoRead)
                .childHandler(initializer(handlers))
                .bind(new InetSocketAddress(ip, 0)).sync().channel();
    }

    Channel connect(Channel server, Supplier<ChannelHandler[]> handlers) throws InterruptedException {
        return connect(server.localAddress(), handlers);
    }

    Channel connect(SocketAddress server, Supplier<ChannelHandler[]> handlers) throws InterruptedException {
        return new Bootstrap().group(clientGroup).channel(RdmaSocketChannel.class)
                .handler(initializer(handlers))
                .connect(server).sync().channel();
    }

    private static ChannelInitializer<Channel> initializer(Supplier<ChannelHandler[]> handlers) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(handlers.get());
            }
        };
    }

    @Override
    public void close() {
        clientGroup.shutdownGracefully(0, 10, TimeUnit.SECONDS).syncUninterruptibly();
        if (childGroup != null) {
            childGroup.shutdownGracefully(0, 10, TimeUnit.SECONDS).syncUninterruptibly();
        }
        serverGroup.shutdownGracefully(0, 10, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
