package io.jrdma.benchmarks.netty;

import io.jrdma.benchmarks.PeerOptions;
import io.jrdma.tool.perf.BandwidthStatistics;
import io.jrdma.tool.perf.JitQuiet;
import io.jrdma.tool.perf.LatencyStatistics;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The Netty side of {@code scripts/bench-netty}: one Netty application, five tests, run over any of the four
 * {@link PerfTransport transports} with nothing changed but the event loop's handler factory and the channel
 * classes, as a Netty user switches transports. Each side runs one event loop (the server's accepted channel on its
 * listener's loop); the client measures in its pipeline, on the loop's thread.
 *
 * <ul>
 *   <li>{@code lat}: an echo ping-pong: the client writes SIZE bytes and waits for SIZE bytes back; one-way latency
 *       is half the round trip, with {@code jrdma perf}'s statistics.</li>
 *   <li>{@code rate}: a pipelined echo: the client keeps {@code --depth} messages of SIZE bytes out and writes
 *       another for each one back; messages a second over the whole run.</li>
 *   <li>{@code stream}: the client writes ITERS messages of SIZE bytes as its channel's writability allows, the
 *       server counts them and answers the last byte with one byte, which ends the client's clock.</li>
 *   <li>{@code http}: Netty's HTTP/1.1 codec on both sides: the client keeps {@code --depth} keep-alive connections
 *       (default 16), each with one {@code GET /SIZE} out at a time, and the server answers each with a body of
 *       SIZE bytes; requests a second over the whole run ({@link HttpLoad}).</li>
 *   <li>{@code grpc}: grpc-netty's unary calls of SIZE bytes, one after another on one channel, each answer
 *       checked; the time of a whole call (a round trip), with {@code jrdma perf}'s statistics ({@link GrpcLoad}).</li>
 * </ul>
 *
 * <pre>{@code
 * java -cp CLASSPATH io.jrdma.benchmarks.netty.NettyPerf lat --transport rdma --bind 10.0.2.15 --port 18800 \
 *     --sizes 64:20000                                                                                   # server
 * java -cp CLASSPATH io.jrdma.benchmarks.netty.NettyPerf lat --transport rdma --server 10.0.2.15 --port 18800 \
 *     --sizes 64:20000                                                                                   # client
 * }</pre>
 *
 * <p>Both sides take the same arguments but {@code --bind}/{@code --server}; the client prints one JSON document
 * with the fields of {@code jrdma perf --json}. {@code --warmup-seconds S} repeats the warm-up of every test but
 * {@code stream} until S seconds have passed, every size before the first timed run, and then, before each timed
 * run, runs of the timed run's length until one sets the JIT to work no more ({@link JitQuiet#settle}): a pipelined
 * echo runs its per-flush code once for many messages, so a
 * warm-up counted in messages leaves that code short of the JIT's thresholds, the more so on an emulated machine
 * where the compilers are slow (in the Soft-RoCE VM, jrdma-netty's 64 B rate after 20,000 warm-up messages was a
 * fifth of its rate after 300,000, and a million raised it by a further 40%).
 */
public final class NettyPerf {
    private NettyPerf() {
    }

    /** The five tests. */
    enum Kind {
        LAT, RATE, STREAM, HTTP, GRPC;

        /** Whether a run times each round trip (the others time the whole run). */
        boolean latency() {
            return this == LAT || this == GRPC;
        }
    }

    /**
     * A run's arguments, the same on both sides but the address.
     *
     * @param warmupNanos the least time the client warms up for ({@code lat} and {@code rate}), 0 for one warm-up
     */
    record Plan(Kind kind, PerfTransport transport, PeerOptions options, long warmupNanos) {
    }

    /**
     * Runs one side.
     *
     * @param args {@code lat|rate|stream|http|grpc --transport rdma|nio-rdma|nio|epoll|pipeline (--bind ADDRESS | --server ADDRESS)
     *             [--port N] [--sizes SIZE:ITERS,...] [--warmup N] [--warmup-seconds S] [--depth N]}
     * @throws Exception when the transport fails or the arguments are wrong
     */
    public static void main(String[] args) throws Exception {
        Kind kind = args.length < 1 ? null : switch (args[0]) {
            case "lat" -> Kind.LAT;
            case "rate" -> Kind.RATE;
            case "stream" -> Kind.STREAM;
            case "http" -> Kind.HTTP;
            case "grpc" -> Kind.GRPC;
            default -> null;
        };
        if (kind == null) {
            throw new IllegalArgumentException("usage: NettyPerf lat|rate|stream|http|grpc --transport rdma|nio-rdma|nio|epoll|pipeline "
                    + "(--bind ADDRESS | --server ADDRESS) [--port N] [--sizes SIZE:ITERS,...] [--warmup N] "
                    + "[--warmup-seconds S] [--depth N]");
        }
        PerfTransport[] transport = new PerfTransport[1];
        long[] warmupSeconds = new long[1];
        PeerOptions options = PeerOptions.parse(args, 1, 18800, kind == Kind.RATE ? 128 : kind == Kind.HTTP ? 16 : 1,
                Map.of("--transport", value -> transport[0] = PerfTransport.of(value),
                        "--warmup-seconds", value -> warmupSeconds[0] = Long.parseLong(value)));
        if (transport[0] == null) {
            throw new IllegalArgumentException("give --transport");
        }
        if (transport[0] == PerfTransport.PIPELINE && kind != Kind.LAT) {
            throw new IllegalArgumentException("--transport pipeline runs lat only: its two sides share one thread, "
                    + "so only a ping-pong, one side at a time, compares with the transports'");
        }
        if (warmupSeconds[0] < 0 || (warmupSeconds[0] > 0 && kind == Kind.STREAM)) {
            throw new IllegalArgumentException("--warmup-seconds must be at least 0, and is not for stream "
                    + "(the stream's server counts the warm-up's bytes)");
        }
        Plan plan = new Plan(kind, transport[0], options, TimeUnit.SECONDS.toNanos(warmupSeconds[0]));
        if (plan.transport() == PerfTransport.PIPELINE) {
            try (PipelineFloor floor = new PipelineFloor(new Driver(plan), new Echo())) {
                print(plan, measure(plan, floor::run));
            }
            return;
        }
        InetSocketAddress address = options.address();
        PerfTransport.Side side = plan.transport().side(address, !options.client());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("netty-perf"),
                side.handlers());
        try {
            if (options.client()) {
                client(plan, side, group, address);
            } else {
                server(plan, side, group, address);
            }
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** Serves one connection, then ends. */
    private static void server(Plan plan, PerfTransport.Side side, EventLoopGroup group, InetSocketAddress address)
            throws Exception {
        if (plan.kind() == Kind.GRPC) {
            GrpcLoad.serve(side, group, address);
            return;
        }
        CompletableFuture<Void> served = new CompletableFuture<>();
        Channel listener = new ServerBootstrap().group(group).channelFactory(side.servers())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.closeFuture().addListener(f -> served.complete(null));
                        switch (plan.kind()) {
                            case STREAM -> ch.pipeline().addLast(new Sink(plan));
                            case HTTP -> ch.pipeline().addLast(new HttpServerCodec(),
                                    new HttpObjectAggregator(HTTP_MAX_BODY), new HttpAnswer());
                            default -> ch.pipeline().addLast(new Echo());
                        }
                    }
                }).bind(address).sync().channel();
        System.err.println("netty-perf: " + plan.transport().key + " listening on " + listener.localAddress());
        try {
            served.get();
        } finally {
            listener.close().sync();
        }
    }

    private static void client(Plan plan, PerfTransport.Side side, EventLoopGroup group, InetSocketAddress address)
            throws Exception {
        if (plan.kind() == Kind.HTTP) {
            httpClient(plan, side, group, address);
            return;
        }
        if (plan.kind() == Kind.GRPC) {
            GrpcLoad load = new GrpcLoad(side, group, address);
            List<String> rows = measure(plan, load::run);
            load.close();
            print(plan, rows);
            return;
        }
        Driver driver = new Driver(plan);
        Channel channel = new Bootstrap().group(group).channelFactory(side.clients())
                .option(ChannelOption.TCP_NODELAY, true).handler(driver).connect(address).sync().channel();
        List<String> rows = measure(plan, (size, n, stamps) -> driver.run(channel, size, n, stamps));
        channel.close().sync();
        print(plan, rows);
    }

    /** The {@code http} client: {@code --depth} keep-alive connections on the one loop. */
    private static void httpClient(Plan plan, PerfTransport.Side side, EventLoopGroup group,
                                   InetSocketAddress address) throws Exception {
        List<Channel> connections = new ArrayList<>();
        HttpLoad load = new HttpLoad(connections);
        Bootstrap bootstrap = new Bootstrap().group(group).channelFactory(side.clients())
                .option(ChannelOption.TCP_NODELAY, true).handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(HTTP_MAX_BODY),
                                load.answers());
                    }
                });
        for (int i = 0; i < plan.options().depth(); i++) {
            connections.add(bootstrap.connect(address).sync().channel());
        }
        List<String> rows = measure(plan, (size, n, stamps) -> load.run(size, n));
        for (Channel c : connections) {
            c.close().sync();
        }
        print(plan, rows);
    }

    /** One run of a test's client: {@code n} messages (or requests) of {@code size} bytes. */
    private interface Run {
        /**
         * @param stamps where a latency run writes the start of each round trip, or null
         * @return the run's time in nanoseconds
         */
        long run(int size, int n, long[] stamps) throws Exception;
    }

    /**
     * Measures each size of the plan after a warm-up run of its own; the JSON rows. A warm-up for a time first warms
     * up every size for that time: a codec's code is shared by the sizes but takes other branches at each (HTTP's
     * and gRPC's buffers, Netty's allocator's size classes), and warmed up one size at a time, the first size's timed
     * run met code the JIT was still compiling (64 B came out slower than 4 KiB on every transport). A warm-up
     * counted in messages alone keeps the order the stream's server counts on: a size's warm-up, then its run.
     */
    private static List<String> measure(Plan plan, Run run) throws Exception {
        List<String> rows = new ArrayList<>();
        PeerOptions options = plan.options();
        if (options.warmup() > 0 && plan.warmupNanos() > 0) {
            for (int size : options.sizes().keySet()) {
                int w = options.warmup(size);
                long[] stamps = stamps(plan, w);
                long start = System.nanoTime();
                do {
                    run.run(size, w, stamps);
                } while (System.nanoTime() - start < plan.warmupNanos());
            }
        }
        for (Map.Entry<Integer, Integer> e : options.sizes().entrySet()) {
            int size = e.getKey();
            int n = e.getValue();
            int w = options.warmup() == 0 ? 0 : options.warmup(size);
            if (w > 0) {
                run.run(size, w, stamps(plan, w));
            }
            if (w > 0 && plan.warmupNanos() > 0) {
                // A warm-up for a time is for tests whose server does not count runs: more of them are safe.
                JitQuiet.settle(k -> run.run(size, k, stamps(plan, k)), n);
            } else {
                JitQuiet.await();
            }
            long[] stamps = stamps(plan, n);
            long runStart = System.nanoTime();
            long nanos = run.run(size, n, stamps);
            long runEnd = System.nanoTime();
            // An echo's latency is one way, half its round trip; a gRPC call's is the whole call.
            String row = plan.kind().latency()
                    ? LatencyStatistics.ofStamps(stamps, n, plan.kind() == Kind.LAT ? 2 : 1).jsonFields()
                    : BandwidthStatistics.ofTotal((long) size * n, n, nanos, 0).jsonFields(false);
            // Where the run began and ended on CLOCK_MONOTONIC (System.nanoTime's on Linux), as jrdma perf says it,
            // so that scripts/profile finds it among a profiler's samples.
            rows.add(String.format(Locale.ROOT, "{\"bytes\":%d,\"iterations\":%d,\"warmup_iterations\":%d%s,"
                    + "\"run_monotonic_ns\":[%d,%d]}", size, n, w, row, runStart, runEnd));
        }
        return rows;
    }

    /**
     * Where a latency run of {@code n} writes its stamps, or null. Warm-ups stamp too, into arrays of their own, so
     * that the timed run runs the code they warmed up: without, the stamp's store is a branch no warm-up took, which
     * the JIT may leave out of the client's read path and then has to compile again once the timed run takes it.
     */
    private static long[] stamps(Plan plan, int n) {
        return plan.kind().latency() ? new long[n] : null;
    }

    private static void print(Plan plan, List<String> rows) {
        PeerOptions options = plan.options();
        System.out.printf(Locale.ROOT, "{\"test\":\"netty-%s-%s\",\"transport\":\"%s\",\"depth\":%d,\"warmup\":%d,"
                        + "\"warmup_seconds\":%d,\"results\":[%s]}%n", plan.transport().key,
                plan.kind().name().toLowerCase(Locale.ROOT), plan.transport().key, options.depth(), options.warmup(),
                TimeUnit.NANOSECONDS.toSeconds(plan.warmupNanos()), String.join(",", rows));
    }

    /** {@code size} bytes counting up from 0, in a direct buffer of {@code alloc}'s: what the Netty tests send. */
    static ByteBuf payload(ByteBufAllocator alloc, int size) {
        return alloc.directBuffer(size).writeBytes(payload(size));
    }

    /** {@code size} bytes counting up from 0 (wrapping at 256): what every test sends. */
    static byte[] payload(int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) i;
        }
        return bytes;
    }

    /** The largest HTTP body either side aggregates. */
    private static final int HTTP_MAX_BODY = 16 << 20;

    /** The server of {@code http}: {@code GET /SIZE} is answered with SIZE bytes, the connection kept alive. */
    private static final class HttpAnswer extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final Map<Integer, ByteBuf> bodies = new HashMap<>();

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            int size = Integer.parseInt(request.uri().substring(1));
            ByteBuf body = bodies.computeIfAbsent(size, n -> payload(ctx.alloc(), n)).retainedDuplicate();
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
            HttpUtil.setContentLength(response, size);
            HttpUtil.setKeepAlive(response, HttpUtil.isKeepAlive(request));
            ctx.writeAndFlush(response, ctx.voidPromise());
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            bodies.values().forEach(ByteBuf::release);
        }
    }

    /** The server of {@code lat} and {@code rate}: every buffer back as it came, flushed once a read is done. */
    static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /**
     * The server of {@code stream}: counts the bytes of each run the client makes (the same plan, so the same
     * warm-ups and sizes), and answers the last byte of each with one byte.
     */
    private static final class Sink extends ChannelInboundHandlerAdapter {
        private final long[] runs;
        private int run;
        private long received;

        Sink(Plan plan) {
            List<Long> totals = new ArrayList<>();
            PeerOptions options = plan.options();
            options.sizes().forEach((size, n) -> {
                if (options.warmup() > 0) {
                    totals.add((long) size * options.warmup(size));
                }
                totals.add((long) size * n);
            });
            runs = totals.stream().mapToLong(Long::longValue).toArray();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buffer = (ByteBuf) msg;
            received += buffer.readableBytes();
            buffer.release();
            while (run < runs.length && received >= runs[run]) {
                received -= runs[run++];
                ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte(run));
            }
        }
    }
}
