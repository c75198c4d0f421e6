package io.jrdma.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * An echo server in a JVM of its own, for tests that kill it: one loop of {@link RdmaIoHandler}s on the address in
 * {@code args[0]} ({@link NettyBed#OPTIONS}), every accepted channel echoing what it reads; it prints
 * {@code listening PORT} and runs until it is killed.
 */
public final class NettyServerMain {
    private NettyServerMain() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress ip = InetAddress.getByName(args[0]);
        EventLoop loop = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(ip, NettyBed.OPTIONS)).next();
        Channel server = new ServerBootstrap().group(loop, loop).channel(RdmaServerSocketChannel.class)
                .childOption(ChannelOption.AUTO_READ, true)
                .childHandler(new Echo())
                .bind(new InetSocketAddress(ip, 0)).sync().channel();
        System.out.println("listening " + ((InetSocketAddress) server.localAddress()).getPort());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
