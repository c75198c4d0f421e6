package io.jrdma.tool;

import io.jrdma.nio.RdmaChannels;
import io.jrdma.nio.RdmaSelectorProvider;
import io.jrdma.tool.perf.Warmup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.Locale;

/**
 * {@code jrdma rstream}: librdmacm's {@code rstream} test, in Java over {@code java.nio} socket channels of jrdma-nio
 * (rsockets), or of the JVM's default provider (TCP) with {@code -T s}. It speaks rstream's protocol and prints its
 * result line, so it runs against C {@code rstream} in either role and its numbers compare with the C tool's:
 * after a 16-byte exchange, each iteration the client sends COUNT transfers of SIZE bytes and the server sends
 * as many back. Like rstream by default, the channels are non-blocking and every call that moves nothing is
 * retried at once (busy polling); {@code -T b} uses blocking channels instead.
 *
 * {@snippet lang=shell :
 * $ jrdma rstream -b 10.0.2.15 -S 64 -C 1 -I 10000            # server
 * $ jrdma rstream -s 10.0.2.15 -S 64 -C 1 -I 10000            # client: one-way latency of 64 B transfers
 * }
 */
@Command(name = "rstream", sortOptions = false,
        description = {"librdmacm's rstream test in Java, over jrdma-nio's channels (rsockets) or TCP (-T s).",
                "Speaks rstream's protocol and prints its result line: runs against C rstream in either role."})
final class RstreamCommand extends ToolCommand {
    private static final int SYNC = 16;

    @Option(names = "-s", paramLabel = "<server>", description = "connect to this server (client role)")
    private InetAddress server;

    @Option(names = "-b", paramLabel = "<bind>", description = "listen on this address (server role)")
    private InetAddress bind;

    @Option(names = "-p", paramLabel = "<port>", description = "port (default ${DEFAULT-VALUE})")
    private int port = 7471;

    @Option(names = "-S", paramLabel = "<size>", description = "transfer size in bytes (default ${DEFAULT-VALUE})")
    private int size = 1000;

    @Option(names = "-C", paramLabel = "<count>", description = "transfers each way per iteration "
            + "(default ${DEFAULT-VALUE})")
    private int count = 1000;

    @Option(names = "-I", paramLabel = "<iterations>", description = "iterations (default ${DEFAULT-VALUE})")
    private int iterations = 1;

    @Option(names = "--warmup", paramLabel = "<iterations>", description = "untimed iterations before the timed "
            + "ones, then a wait until the JIT is idle (default 0, as rstream has none: give both sides the same "
            + "number)")
    private int warmup;

    @Option(names = "--runs", paramLabel = "<runs>", description = "timed runs of -I iterations on the one "
            + "connection, a result line each (default ${DEFAULT-VALUE}; give both sides the same number)")
    private int runs = 1;

    @Option(names = "--paced", description = "before each timed run, wait for a line on standard input: a script "
            + "runs something else between the runs (another program's test) while this side neither polls nor "
            + "sends")
    private boolean paced;

    @Option(names = "-B", paramLabel = "<bytes>", description = "SO_SNDBUF and SO_RCVBUF (default 512 KiB, "
            + "as rstream); over RDMA the server's listener gets them too, as rstream's does")
    private int bufferSize = 1 << 19;

    @Option(names = "-T", paramLabel = "<option>", description = "s: TCP through the JVM's default provider; "
            + "b: blocking channels; v: verify the data (rstream's byte pattern); may repeat")
    private List<String> testOptions = List.of();

    private boolean tcp;
    private boolean blocking;
    private boolean verify;

    RstreamCommand(PrintStream out, PrintStream err) {
        super(out, err);
    }

    @Override
    public Integer call() throws Exception {
        check();
        boolean client = server != null;
        InetAddress address = client ? server : bind;
        SelectorProvider provider = tcp ? SelectorProvider.provider() : rdmaProvider(client, address);
        try (SocketChannel channel = client ? connect(provider, new InetSocketAddress(address, port))
                : accept(provider, new InetSocketAddress(address, port))) {
            if (!tcp && !RdmaChannels.isRdma(channel)) {
                throw new IllegalStateException("rstream: the connection is not over RDMA");
            }
            Transfers transfers = new Transfers(channel, size, verify);
            transfers.warmUp(client, count, warmup);
            BufferedReader pace = paced ? new BufferedReader(new InputStreamReader(System.in)) : null;
            for (int run = 0; run < runs; run++) {
                if (pace != null && pace.readLine() == null) {
                    throw new EOFException("rstream: standard input ended before timed run " + (run + 1)
                            + " of " + runs);
                }
                // A C rstream peer runs one timed run straight after the opening exchange, with nothing between.
                boolean sync = warmup > 0 || paced || run > 0;
                transfers.run(client, count, iterations, sync, run == 0, out);
            }
        }
        return 0;
    }

    /**
     * jrdma-nio for this one address. rstream sets both buffer sizes on its listening rsocket as well, and the
     * connections it accepts inherit them; a server socket channel has no {@code SO_SNDBUF}, so the provider gives
     * every rsocket the buffers rsockets make of {@code -B}: twice it, as rsockets double the value they are set.
     */
    private SelectorProvider rdmaProvider(boolean client, InetAddress address) {
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules(
                "rdma " + (client ? "connect " : "bind ") + address.getHostAddress() + " " + port, false);
        try {
            return provider.withBufferSize(2 * bufferSize);
        } catch (IllegalArgumentException e) {
            throw usage("-B " + bufferSize + " gives rsockets buffers of " + 2L * bufferSize + " bytes: "
                    + e.getMessage());
        }
    }

    private SocketChannel connect(SelectorProvider provider, InetSocketAddress at) throws Exception {
        for (int attempt = 0; ; attempt++) {
            SocketChannel channel = configure(provider.openSocketChannel());
            try {
                channel.connect(at);
                channel.configureBlocking(blocking);
                return channel;
            } catch (ConnectException notListening) {
                channel.close();
                if (attempt == 600) {
                    throw notListening;
                }
                Thread.sleep(100);   // the server may be starting (a cold JVM in an emulator: up to a minute)
            }
        }
    }

    private SocketChannel accept(SelectorProvider provider, InetSocketAddress at) throws IOException {
        try (ServerSocketChannel listener = provider.openServerSocketChannel()) {
            listener.setOption(StandardSocketOptions.SO_RCVBUF, bufferSize);
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            listener.bind(at);
            SocketChannel channel = configure(listener.accept());
            channel.configureBlocking(blocking);
            return channel;
        }
    }

    private SocketChannel configure(SocketChannel channel) throws IOException {
        channel.setOption(StandardSocketOptions.SO_SNDBUF, bufferSize);
        channel.setOption(StandardSocketOptions.SO_RCVBUF, bufferSize);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        return channel;
    }

    private void check() {
        if ((server == null) == (bind == null)) {
            throw usage("give -s SERVER (client) or -b ADDRESS (server)");
        }
        check("-p", port, 1, 65535);
        check("-S", size, 1, 1 << 30);
        check("-C", count, 1, Integer.MAX_VALUE);
        check("-I", iterations, 1, Integer.MAX_VALUE);
        check("--warmup", warmup, 0, Integer.MAX_VALUE);
        check("--runs", runs, 1, Integer.MAX_VALUE);
        check("-B", bufferSize, 1, Integer.MAX_VALUE / 2);
        for (String option : testOptions) {
            switch (option) {
                case "s" -> tcp = true;
                case "b" -> blocking = true;
                case "v" -> verify = true;
                default -> throw usage("-T takes s, b or v, not '" + option + "'");
            }
        }
    }

    /** One side's transfers: rstream's buffer, and its byte counters when verifying. */
    private static final class Transfers {
        private final SocketChannel channel;
        private final ByteBuffer buffer;
        private final boolean verify;
        private byte formatted;
        private byte checked;
        private long checkedBytes;

        Transfers(SocketChannel channel, int size, boolean verify) {
            this.channel = channel;
            this.buffer = ByteBuffer.allocateDirect(size);
            this.verify = verify;
        }

        /** rstream's opening exchange, then the untimed iterations, if any. */
        void warmUp(boolean client, int count, int warmup) throws IOException, InterruptedException {
            exchange(client, 1, SYNC);
            if (warmup > 0) {
                // As jrdma perf: the JIT, which shares the CPU in a small machine, finishes before the timing.
                Warmup.run(warmup, n -> iterate(client, count, n));
            }
        }

        /**
         * One timed run and its result line (after rstream's header, if {@code header}). With {@code sync} it starts
         * with an exchange, so that neither side starts timing before the other is there: after a warm-up's wait
         * for the JIT, a paced run's wait for its line, or the other side's printing of the run before.
         */
        void run(boolean client, int count, int iterations, boolean sync, boolean header, PrintStream out)
                throws IOException {
            if (sync) {
                exchange(client, 1, SYNC);
            }
            long nanos = iterate(client, count, iterations);
            if (header) {
                out.println(String.format(Locale.ROOT, "%-10s%-8s%-8s%-8s%-8s%8s %10s%11s",
                        "name", "bytes", "xfers", "iters", "total", "time", "Gb/sec", "usec/xfer"));
            }
            long bytes = (long) iterations * count * buffer.capacity() * 2;
            double usec = nanos / 1000.0;
            out.println(String.format(Locale.ROOT, "%-10s%-8s%-8s%-8s%-8s%8.2fs%10.2f%11.2f", "custom",
                    sizeString(buffer.capacity()), countString(count), countString(iterations), sizeString(bytes),
                    usec / 1e6, bytes * 8 / (1000 * usec), usec / iterations / (count * 2.0)));
            out.flush();
        }

        /**
         * Runs {@code iterations} iterations; the nanoseconds they took. The warm-up runs this same loop, in parts:
         * the JIT compiles a long-running loop on the stack (OSR) per method and loop, and the parts after the first
         * have the loop's end in their profile, so the timed run finds their compiled loop ready instead of one of
         * its own to compile while it runs.
         */
        private long iterate(boolean client, int count, int iterations) throws IOException {
            long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                exchange(client, count, buffer.capacity());
            }
            return System.nanoTime() - start;
        }

        private void exchange(boolean client, int transfers, int bytes) throws IOException {
            for (int half = 0; half < 2; half++) {
                boolean sending = client == (half == 0);
                for (int t = 0; t < transfers; t++) {
                    if (sending) {
                        send(bytes);
                    } else {
                        receive(bytes);
                    }
                }
            }
        }

        private void send(int bytes) throws IOException {
            buffer.clear().limit(bytes);
            if (verify) {
                while (buffer.hasRemaining()) {
                    buffer.put(formatted++);
                }
                buffer.flip();
            }
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }

        private void receive(int bytes) throws IOException {
            buffer.clear().limit(bytes);
            while (buffer.hasRemaining()) {
                if (channel.read(buffer) < 0) {
                    throw new EOFException("rstream: the peer closed the connection "
                            + buffer.remaining() + " bytes before the end of a transfer");
                }
            }
            if (verify) {
                buffer.flip();
                while (buffer.hasRemaining()) {
                    byte b = buffer.get();
                    if (b != checked) {
                        throw new IOException("rstream: data verification failed at byte " + checkedBytes);
                    }
                    checked++;
                    checkedBytes++;
                }
            }
        }
    }

    /** rstream's way of writing a size: 4k, 1.5m, ... */
    static String sizeString(long size) {
        long base = size >= 1 << 30 ? 1 << 30 : size >= 1 << 20 ? 1 << 20 : size >= 1 << 10 ? 1 << 10 : 1;
        String magnitude = base == 1 << 30 ? "g" : base == 1 << 20 ? "m" : base == 1 << 10 ? "k" : "";
        long fraction = size / base < 10 ? size % base * 10 / base : 0;
        return size / base + (fraction != 0 ? "." + fraction : "") + magnitude;
    }

    /** rstream's way of writing a count: 1k, 10m, ... */
    static String countString(long count) {
        return count >= 1_000_000_000 ? count / 1_000_000_000 + "b" : count >= 1_000_000 ? count / 1_000_000 + "m"
                : count >= 1000 ? count / 1000 + "k" : Long.toString(count);
    }
}
