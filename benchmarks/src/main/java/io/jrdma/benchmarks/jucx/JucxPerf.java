package io.jrdma.benchmarks.jucx;

import io.jrdma.benchmarks.PeerOptions;
import io.jrdma.tool.perf.BandwidthStatistics;
import io.jrdma.tool.perf.LatencyStatistics;
import io.jrdma.tool.perf.Warmup;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpConnectionRequest;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpListener;
import org.openucx.jucx.ucp.UcpListenerParams;
import org.openucx.jucx.ucp.UcpMemMapParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The JUCX peer of {@code scripts/bench-endpoint}: {@code jrdma endpoint-perf}'s two tests over UCX's Java binding,
 * through its tagged messages (UCP's tag matching, the path JUCX's own examples and spark-rapids' shuffle use for
 * messages). Each side busy-polls {@code worker.progress()} on its own thread; the endpoints connect through a
 * {@link UcpListener} (UCX's connection manager over rdma_cm), so UCX picks its transports by {@code UCX_TLS} and
 * {@code UCX_NET_DEVICES} alone.
 *
 * <ul>
 *   <li>{@code lat}: a ping-pong of tagged messages, the client's receive posted before its send; one-way latency
 *       is half the round trip, with {@code jrdma perf}'s statistics.</li>
 *   <li>{@code rate}: the client keeps {@code --depth} sends in flight; the server keeps as many receives posted and
 *       answers the last message with a tagged acknowledgement, which ends the client's clock (a UCX send completes
 *       when its buffer is free again, which for an eager message is before the peer has it).</li>
 * </ul>
 *
 * <pre>{@code
 * java -cp CLASSPATH io.jrdma.benchmarks.jucx.JucxPerf lat --bind 10.0.2.15 --port 18517 --sizes 64:20000   # server
 * java -cp CLASSPATH io.jrdma.benchmarks.jucx.JucxPerf lat --server 10.0.2.15 --port 18517 --sizes 64:20000 # client
 * }</pre>
 *
 * <p>Both sides take the same arguments but {@code --bind}/{@code --server}; the client prints one JSON document
 * with the fields of {@code jrdma perf --json}.
 */
public final class JucxPerf {
    private static final long DATA = 1;
    private static final long ACK = 2;
    private static final long EXACT = -1L;

    private final boolean latency;
    private final PeerOptions options;
    private final UcpWorker worker;
    private final long buffer;
    /** Counts completions without a callback object per request. */
    private final Counter done = new Counter();

    private JucxPerf(boolean latency, PeerOptions options, UcpWorker worker, long buffer) {
        this.latency = latency;
        this.options = options;
        this.worker = worker;
        this.buffer = buffer;
    }

    /**
     * Runs one side.
     *
     * @param args {@code lat|rate (--bind ADDRESS | --server ADDRESS) [--port N] [--sizes SIZE:ITERS,...]
     *             [--warmup N] [--depth N]}
     * @throws Exception when UCX fails or the arguments are wrong
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 1 || !(args[0].equals("lat") || args[0].equals("rate"))) {
            throw new IllegalArgumentException("usage: JucxPerf lat|rate (--bind ADDRESS | --server ADDRESS) "
                    + "[--port N] [--sizes SIZE:ITERS,...] [--warmup N] [--depth N]");
        }
        boolean latency = args[0].equals("lat");
        PeerOptions options = PeerOptions.parse(args, 1, 18517, latency ? 1 : 128, Map.of());
        int largest = options.sizes().keySet().stream().mapToInt(Integer::intValue).max().orElseThrow();
        try (UcpContext context = new UcpContext(new UcpParams().requestTagFeature());
             UcpWorker worker = context.newWorker(new UcpWorkerParams());
             UcpMemory memory = context.memoryMap(new UcpMemMapParams().allocate().setLength(largest))) {
            JucxPerf perf = new JucxPerf(latency, options, worker, memory.getAddress());
            if (options.client()) {
                perf.client(options.address());
            } else {
                perf.server(options.address());
            }
        }
    }

    private void server(InetSocketAddress address) throws Exception {
        UcpConnectionRequest[] request = new UcpConnectionRequest[1];
        try (UcpListener listener = worker.newListener(new UcpListenerParams().setSockAddr(address)
                .setConnectionHandler(r -> request[0] = r))) {
            System.err.println("jucx-perf: listening on " + listener.getAddress());
            while (request[0] == null) {
                worker.progress();
            }
            UcpEndpoint ep = worker.newEndpoint(new UcpEndpointParams().setConnectionRequest(request[0])
                    .setPeerErrorHandlingMode());
            for (Map.Entry<Integer, Integer> e : options.sizes().entrySet()) {
                int size = e.getKey();
                int w = options.warmup() == 0 ? 0 : options.warmup(size);
                if (latency) {
                    echo(ep, size, w);
                    echo(ep, size, e.getValue());
                } else {
                    // The client's warm-up runs in parts, each waiting for this side's acknowledgement of its end.
                    Warmup.inParts(w, k -> sink(ep, size, k));
                    sink(ep, size, e.getValue());
                }
            }
            close(ep);
        }
    }

    private void client(InetSocketAddress server) throws Exception {
        UcpEndpoint ep = worker.newEndpoint(new UcpEndpointParams().setSocketAddress(server)
                .setPeerErrorHandlingMode());
        List<String> rows = new ArrayList<>();
        for (Map.Entry<Integer, Integer> e : options.sizes().entrySet()) {
            int size = e.getKey();
            int n = e.getValue();
            int w = options.warmup() == 0 ? 0 : options.warmup(size);
            String row;
            if (latency) {
                Warmup.run(w, k -> pingPong(ep, size, k, null));
                long[] stamps = new long[n];
                pingPong(ep, size, n, stamps);
                row = LatencyStatistics.ofStamps(stamps, n, 2).jsonFields();
            } else {
                Warmup.run(w, k -> stream(ep, size, k));
                long start = System.nanoTime();
                stream(ep, size, n);
                long nanos = System.nanoTime() - start;
                row = BandwidthStatistics.ofTotal((long) size * n, n, nanos, 0).jsonFields(false);
            }
            rows.add(String.format(Locale.ROOT, "{\"bytes\":%d,\"iterations\":%d,\"warmup_iterations\":%d%s}",
                    size, n, w, row));
        }
        close(ep);
        System.out.printf(Locale.ROOT, "{\"test\":\"jucx-%s\",\"api\":\"tagged messages\",\"depth\":%d,"
                + "\"warmup\":%d,\"results\":[%s]}%n", latency ? "lat" : "rate", options.depth(), options.warmup(),
                String.join(",", rows));
    }

    private void pingPong(UcpEndpoint ep, int size, int n, long[] stamps) throws Exception {
        for (int i = 0; i < n; i++) {
            if (stamps != null) {
                stamps[i] = System.nanoTime();
            }
            UcpRequest reply = worker.recvTaggedNonBlocking(buffer, size, DATA, EXACT, null);
            UcpRequest send = ep.sendTaggedNonBlocking(buffer, size, DATA, null);
            while (!reply.isCompleted() || !send.isCompleted()) {
                worker.progress();
            }
        }
    }

    private void echo(UcpEndpoint ep, int size, int n) throws Exception {
        UcpRequest send = null;
        for (int i = 0; i < n; i++) {
            UcpRequest message = worker.recvTaggedNonBlocking(buffer, size, DATA, EXACT, null);
            while (!message.isCompleted() || (send != null && !send.isCompleted())) {
                worker.progress();
            }
            send = ep.sendTaggedNonBlocking(buffer, size, DATA, null);
        }
        while (send != null && !send.isCompleted()) {
            worker.progress();
        }
    }

    /** {@code n} messages with up to the depth in flight, then the server's acknowledgement of the last. */
    private void stream(UcpEndpoint ep, int size, int n) throws Exception {
        done.count = 0;
        UcpRequest ack = worker.recvTaggedNonBlocking(buffer, 8, ACK, EXACT, null);
        int posted = 0;
        while (done.count < n || !ack.isCompleted()) {
            while (posted < n && posted - done.count < options.depth()) {
                ep.sendTaggedNonBlocking(buffer, size, DATA, done);
                posted++;
            }
            worker.progress();
        }
    }

    private void sink(UcpEndpoint ep, int size, int n) throws Exception {
        done.count = 0;
        int posted = 0;
        while (done.count < n) {
            while (posted < n && posted - done.count < options.depth()) {
                worker.recvTaggedNonBlocking(buffer, size, DATA, EXACT, done);
                posted++;
            }
            worker.progress();
        }
        UcpRequest ack = ep.sendTaggedNonBlocking(buffer, 8, ACK, null);
        while (!ack.isCompleted()) {
            worker.progress();
        }
    }

    private void close(UcpEndpoint ep) throws Exception {
        UcpRequest closing = ep.closeNonBlockingFlush();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!closing.isCompleted() && System.nanoTime() < deadline) {
            worker.progress();
        }
    }

    /** A completion counter: one callback object for every request of a run. */
    private static final class Counter extends UcxCallback {
        int count;

        @Override
        public void onSuccess(UcpRequest request) {
            count++;
        }

        @Override
        public void onError(int status, String message) {
            throw new IllegalStateException("UCX request failed: " + status + " " + message);
        }
    }
}
