package io.jrdma.netty.testsuite;

import io.jrdma.endpoint.WorkerOptions;
import io.jrdma.ibverbs.Device;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.netty.RdmaIoHandler;
import io.jrdma.netty.RdmaServerSocketChannel;
import io.jrdma.netty.RdmaSocketChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The transport's place in Netty's socket test suite, as its io_uring transport has one: the bootstraps the suite's
 * tests run with (a server of {@link RdmaServerSocketChannel}s, a client of {@link RdmaSocketChannel}s) and the
 * address they bind, the device's. One server loop (accepted channels live on their server's loop) and two client
 * loops, made on first use and shut down with the JVM.
 */
final class RdmaPermutation {
    /** 4 KiB messages, 32 credits, at most 16 connections per loop: 2 MiB of receive buffers per loop. */
    private static final WorkerOptions OPTIONS = WorkerOptions.defaults().withCredits(32, 16);

    private static InetAddress address;
    private static EventLoopGroup serverGroup;
    private static EventLoopGroup clientGroup;

    private RdmaPermutation() {
    }

    /** Runs the suite on {@code device}: the loops are made for its address the first time. */
    static synchronized void use(Device device) throws IOException {
        if (address != null) {
            return;
        }
        address = DeviceAddresses.ipv4(device);
        serverGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("testsuite-rdma-server", true),
                RdmaIoHandler.newFactory(address, OPTIONS));
        clientGroup = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("testsuite-rdma-client", true),
                RdmaIoHandler.newFactory(address, OPTIONS));
        // Each loop opens its worker when its thread starts: here, not in the first test's time bound.
        for (EventLoopGroup group : List.of(serverGroup, clientGroup)) {
            group.forEach(loop -> loop.submit(() -> { }).syncUninterruptibly());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            clientGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
            serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }));
    }

    /** A server and a client over RDMA: the suite's one combination here. */
    static List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket() {
        return List.of(new BootstrapComboFactory<>() {
            @Override
            public ServerBootstrap newServerInstance() {
                return server();
            }

            @Override
            public Bootstrap newClientInstance() {
                return client();
            }
        });
    }

    static synchronized ServerBootstrap server() {
        return new ServerBootstrap().group(serverGroup).channel(RdmaServerSocketChannel.class);
    }

    static synchronized Bootstrap client() {
        return new Bootstrap().group(clientGroup).channel(RdmaSocketChannel.class);
    }

    /** The device's address with any port: what the suite binds its servers and clients to. */
    static synchronized SocketAddress newSocketAddress() {
        return new InetSocketAddress(address, 0);
    }
}
