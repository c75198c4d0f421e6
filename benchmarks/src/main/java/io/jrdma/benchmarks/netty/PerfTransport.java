package io.jrdma.benchmarks.netty;

import io.jrdma.endpoint.WorkerOptions;
import io.jrdma.netty.RdmaIoHandler;
import io.jrdma.netty.RdmaServerSocketChannel;
import io.jrdma.netty.RdmaSocketChannel;
import io.jrdma.nio.RdmaSelectorProvider;
import io.netty.channel.ChannelFactory;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.SelectStrategy;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;

/**
 * The four ways {@link NettyPerf}'s two sides talk, each with its event loop's {@link IoHandlerFactory} and its
 * channel classes, and each at the lowest latency its transport offers a user: jrdma-netty's loop busy-polls its
 * worker (a spin longer than any pause of the test), epoll's loop busy-waits ({@link SelectStrategy#BUSY_WAIT}); NIO
 * has no busy mode and blocks in its selector, over the JDK's TCP as over jrdma-nio's rsockets (whose {@code rpoll}
 * spins a little before it blocks). A fifth is no transport at all: the floor under every one of them, Netty's own
 * work for a message ({@link PipelineFloor}).
 */
enum PerfTransport {
    /** jrdma-netty: {@link RdmaIoHandler}, {@link RdmaSocketChannel}. */
    RDMA("rdma"),
    /** Netty's NIO transport over jrdma-nio's selector provider (rsockets). */
    NIO_RDMA("nio-rdma"),
    /** Netty's NIO transport over the JDK's TCP. */
    NIO("nio"),
    /** Netty's epoll transport over the kernel's TCP. */
    EPOLL("epoll"),
    /** No I/O: both pipelines in the client's JVM, on its thread ({@link PipelineFloor}). */
    PIPELINE("pipeline");

    /**
     * jrdma-netty's options: the transport's defaults (its {@link RdmaIoHandler#streamingOptions() streaming options}
     * if the system property {@code jrdma.bench.streaming} is {@code true}), busy-polling through every pause of a
     * run unless the system property {@code jrdma.bench.spinMicros} sets the spin (a loop that blocks sooner leaves
     * its vCPU to the kernel's Soft-RoCE work), with the message size of the system property
     * {@code jrdma.bench.messageSize} if set (and then {@code jrdma.bench.credits} credits, 32 unless set, a send
     * queue twice as deep, and 8 connections a loop), and the send queue depth of {@code jrdma.bench.sendDepth} if
     * set.
     */
    private static final WorkerOptions RDMA_OPTIONS = sendDepth(messageSize(
            (Boolean.getBoolean("jrdma.bench.streaming") ? RdmaIoHandler.streamingOptions()
                    : RdmaIoHandler.defaultOptions())
                    .withSpin(Duration.ofNanos(Long.getLong("jrdma.bench.spinMicros", 10_000_000L) * 1000)),
            Integer.getInteger("jrdma.bench.messageSize", 0)), Integer.getInteger("jrdma.bench.sendDepth", 0));

    private static WorkerOptions messageSize(WorkerOptions options, int bytes) {
        int credits = Integer.getInteger("jrdma.bench.credits", 32);
        return bytes == 0 ? options : options.withMessageSize(bytes).withCredits(credits, 8)
                .withDepths(credits * 2, 8);
    }

    private static WorkerOptions sendDepth(WorkerOptions options, int depth) {
        return depth == 0 ? options : options.withDepths(depth, options.readDepth());
    }

    final String key;

    PerfTransport(String key) {
        this.key = key;
    }

    static PerfTransport of(String key) {
        return Arrays.stream(values()).filter(t -> t.key.equals(key)).findFirst().orElseThrow(
                () -> new IllegalArgumentException("--transport is rdma, nio-rdma, nio, epoll or pipeline, not "
                        + key));
    }

    /** What one side needs: its loop's handler factory and the channel classes, for a server or a client. */
    record Side(IoHandlerFactory handlers, ChannelFactory<ServerChannel> servers,
                ChannelFactory<SocketChannel> clients) {
    }

    /**
     * One side's setup.
     *
     * @param server the server's address: the side binds it, or connects to it
     * @param bind   whether this is the server
     */
    Side side(InetSocketAddress server, boolean bind) throws IOException {
        return switch (this) {
            case RDMA -> new Side(RdmaIoHandler.newFactory(bind ? server.getAddress() : localAddressTo(server),
                    RDMA_OPTIONS), RdmaServerSocketChannel::new, RdmaSocketChannel::new);
            case NIO_RDMA -> {
                RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("rdma " + (bind ? "bind " : "connect ")
                        + server.getAddress().getHostAddress() + " " + server.getPort(), false);
                yield new Side(NioIoHandler.newFactory(provider), () -> new NioServerSocketChannel(provider),
                        () -> new NioSocketChannel(provider));
            }
            case NIO -> new Side(NioIoHandler.newFactory(), NioServerSocketChannel::new, NioSocketChannel::new);
            case EPOLL -> new Side(EpollIoHandler.newFactory(0,
                    () -> (selectNow, hasTasks) -> hasTasks ? selectNow.get() : SelectStrategy.BUSY_WAIT),
                    EpollServerSocketChannel::new, EpollSocketChannel::new);
            case PIPELINE -> throw new IllegalArgumentException("the pipeline floor has no event loop and no channel "
                    + "classes: it runs on EmbeddedChannels");
        };
    }

    /** The address this machine reaches {@code server} from: the client's RDMA device (no packet is sent). */
    private static InetAddress localAddressTo(InetSocketAddress server) throws IOException {
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(server);
            return probe.getLocalAddress();
        }
    }
}
