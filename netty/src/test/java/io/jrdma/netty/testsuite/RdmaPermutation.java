package io.jrdma.netty.testsuite;

import io.jrdma.endpoint.WorkerOptions;
import io.jrdma.ibverbs.Device;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.netty.RdmaIoHandler;
import io.jrdma.netty.RdmaServerSocketChannel;
import io.jrdma.netty.RdmaSocketChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.util.TestUtils;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The transport's place in Netty's socket test suite, as its io_uring transport has one: the bootstraps the suite's
 * tests run with (a server of {@link RdmaServerSocketChannel}s, a client of {@link RdmaSocketChannel}s) and the
 * address they bind, the device's. One server loop, which takes its accepted channels too (the suite turns the server
 * channel's auto-read off, and a request that comes then completes on the server's loop), and two client loops,
 * made on first use and shut down with the JVM. The tests that move streams also run over a second combination, a
 * server loop and a client loop with {@link RdmaIoHandler#streamingOptions()}, where writes under half a message
 * share one and larger ones go in place.
 */
final class RdmaPermutation {
    /** 4 KiB messages, 32 credits, at most 16 connections per loop: 2 MiB of receive buffers per loop. */
    private static final WorkerOptions OPTIONS = RdmaIoHandler.defaultOptions().withCredits(32, 16);
    /** The second combination's: 64 KiB messages, 32 credits, 16 connections per loop, 32 MiB per loop. */
    private static final WorkerOptions STREAMING = RdmaIoHandler.streamingOptions();

    private static InetAddress address;
    private static EventLoopGroup serverGroup;
    private static EventLoopGroup clientGroup;
    private static EventLoopGroup streamingServerGroup;
    private static EventLoopGroup streamingClientGroup;

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
        streamingServerGroup = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("testsuite-rdma-streaming-server", true),
                RdmaIoHandler.newFactory(address, STREAMING));
        streamingClientGroup = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("testsuite-rdma-streaming-client", true),
                RdmaIoHandler.newFactory(address, STREAMING));
        List<EventLoopGroup> groups = List.of(serverGroup, clientGroup, streamingServerGroup, streamingClientGroup);
        // Each loop's thread starts here, not in the first test's time bound.
        for (EventLoopGroup group : groups) {
            group.forEach(loop -> loop.submit(() -> { }).syncUninterruptibly());
        }
        warmUpSuite();
        warmUp();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (EventLoopGroup group : groups.reversed()) {
                group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
            }
        }));
    }

    /**
     * What the suite's first test would otherwise do inside its time bound, done here: the suite's utilities start
     * the JVM's platform MBean server when their class loads, and Netty's adaptive allocator registers its
     * flight-recorder events with the JVM on its first chunk. Each takes seconds on an emulated CPU (5 s for the
     * allocator in an idle guest), and each in turn ran the first test past its 10 s bound in the VM.
     */
    private static void warmUpSuite() {
        try {
            Class.forName(TestUtils.class.getName(), true, TestUtils.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
        List<ByteBufAllocator> allocators = new ArrayList<>(TestsuitePermutation.allocator());
        allocators.add(ByteBufAllocator.DEFAULT);
        for (ByteBufAllocator allocator : allocators) {
            allocator.heapBuffer(1024).release();
            allocator.directBuffer(1024).release();
        }
    }

    /**
     * One echoed connection from each client loop of both combinations, so that the first connection's class loading
     * and compilation (seconds in an emulated guest) and each loop's worker, which opens with its first channel, are
     * paid here and not inside the first test's own time bound.
     */
    private static void warmUp() throws IOException {
        warmUp(false);
        warmUp(true);
    }

    private static void warmUp(boolean streaming) throws IOException {
        Channel server = server(streaming).childHandler(new EchoHandler()).bind(newSocketAddress())
                .syncUninterruptibly().channel();
        try {
            for (EventExecutor loop : clients(streaming)) {
                CompletableFuture<Void> echoed = new CompletableFuture<>();
                Channel client = new Bootstrap().group((EventLoop) loop).channel(RdmaSocketChannel.class)
                        .handler(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ReferenceCountUtil.release(msg);
                                echoed.complete(null);
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                echoed.completeExceptionally(cause);
                            }
                        }).connect(server.localAddress()).syncUninterruptibly().channel();
                try {
                    client.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
                    echoed.get(60, TimeUnit.SECONDS);
                } finally {
                    client.close().syncUninterruptibly();
                }
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("the warm-up connection over RDMA failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while warming up", e);
        } finally {
            server.close().syncUninterruptibly();
        }
    }

    /** Writes back what it reads, on every connection of the warm-up's server. */
    @ChannelHandler.Sharable
    private static final class EchoHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    /** A server and a client over RDMA with the suite's options: the suite's combination here. */
    static List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket() {
        return List.of(combo(false));
    }

    /**
     * The suite's combination, then a server and a client with {@link RdmaIoHandler#streamingOptions()} (64 KiB
     * messages): for the tests that move streams, so that their bytes also go gathered into large messages and, from
     * half a message up, in place.
     */
    static List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socketAndStreaming() {
        return List.of(combo(false), combo(true));
    }

    private static BootstrapComboFactory<ServerBootstrap, Bootstrap> combo(boolean streaming) {
        return new BootstrapComboFactory<>() {
            @Override
            public ServerBootstrap newServerInstance() {
                return server(streaming);
            }

            @Override
            public Bootstrap newClientInstance() {
                return client(streaming);
            }
        };
    }

    private static synchronized ServerBootstrap server(boolean streaming) {
        return new ServerBootstrap().group(streaming ? streamingServerGroup : serverGroup)
                .channel(RdmaServerSocketChannel.class);
    }

    /** A client over RDMA with the suite's options, for the suite's tests that need no server. */
    static Bootstrap client() {
        return client(false);
    }

    private static Bootstrap client(boolean streaming) {
        return new Bootstrap().group(clients(streaming)).channel(RdmaSocketChannel.class);
    }

    /** The client loops of the suite's combination, or of the streaming one. */
    private static synchronized EventLoopGroup clients(boolean streaming) {
        return streaming ? streamingClientGroup : clientGroup;
    }

    /** Handlers of the suite's options on the device, for loop groups a test makes itself. */
    static synchronized IoHandlerFactory handlers() {
        return RdmaIoHandler.newFactory(address, OPTIONS);
    }

    /** The device's address with any port: what the suite binds its servers and clients to. */
    static synchronized SocketAddress newSocketAddress() {
        return new InetSocketAddress(address, 0);
    }
}
