package io.jrdma.tool.perf;

import io.jrdma.endpoint.Buffer;
import io.jrdma.endpoint.Endpoint;
import io.jrdma.endpoint.EndpointHandler;
import io.jrdma.endpoint.EndpointListener;
import io.jrdma.endpoint.OperationHandler;
import io.jrdma.endpoint.ReceivedMessage;
import io.jrdma.endpoint.Worker;
import io.jrdma.ibverbs.RdmaException;

import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * One side of {@code jrdma endpoint-perf}. Every wait is a busy loop over {@link Worker#progress()} on the calling
 * thread, as the client's timed loops are, so that neither side ever sleeps in the kernel: the same conditions as
 * {@code jrdma perf} and perftest, which busy-poll their completion queues.
 */
final class EndpointPerf extends EndpointPerfSide {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);

    EndpointPerf(EndpointPerfOptions options, PrintStream out) {
        super(options, out);
    }

    /**
     * The server: echoes (lat) or releases (rate) every message of one client, until it disconnects. The client's
     * disconnect reaches the server's handler as an error ("the peer disconnected") like any other end of the
     * connection, so the server reports none: the client, which measures, fails if anything broke mid-run.
     */
    @Override
    void server() throws Exception {
        InetAddress address = InetAddress.getByName(options.bind());
        try (Worker worker = Worker.open(address, options.workerOptions())) {
            Peer peer = new Peer(options.latency());
            peer.reply = worker.buffers().allocate(options.workerOptions().messageSize());
            CompletableFuture<EndpointListener> listening = worker.listen(
                    new InetSocketAddress(address, options.port()), 1, request -> request.accept(peer, null));
            spin(worker, listening);
            try (EndpointListener listener = listening.join()) {
                if (!options.json()) {
                    out.println("endpoint-perf: listening on " + listener.localAddress());
                }
                while (!peer.closed) {
                    worker.progress();
                }
            }
            peer.reply.close();
        }
    }

    /** The client: connects, measures every size, prints the results, disconnects. */
    @Override
    void client() throws Exception {
        InetAddress server = InetAddress.getByName(options.server());
        InetAddress local = options.bind() != null ? InetAddress.getByName(options.bind()) : routeTo(server);
        List<PerfResult> results = new ArrayList<>();
        try (Worker worker = Worker.open(local, options.workerOptions())) {
            Peer peer = new Peer(false);
            CompletableFuture<Endpoint> connecting = worker.connect(new InetSocketAddress(server, options.port()),
                    peer, null, CONNECT_TIMEOUT);
            spin(worker, connecting);
            Endpoint ep = connecting.join();
            try (Buffer buffer = worker.buffers().allocate(options.workerOptions().messageSize())) {
                for (int size : options.sizes()) {
                    if (options.latency()) {
                        results.add(latency(size, (n, stamps) -> pingPong(worker, ep, peer, buffer, size, n, stamps)));
                        continue;
                    }
                    int n = options.iterations(size);
                    int w = options.warmup(size);
                    Warmup.run(w, k -> stream(worker, ep, peer, buffer, size, k));
                    long start = System.nanoTime();
                    stream(worker, ep, peer, buffer, size, n);
                    long end = System.nanoTime();
                    results.add(PerfResult.bandwidth(size, n, BandwidthStatistics.ofTotal((long) size * n, n,
                            end - start, 0)).withRun(start, end).withWarmup(w));
                }
            }
            ep.close();
            while (!peer.closed) {
                worker.progress();
            }
            if (peer.failure != null) {
                throw new IOException("the endpoint broke", peer.failure);
            }
        }
        print(options, out, results);
    }

    /**
     * {@code n} round trips of {@code size} bytes, the start of each stamped into {@code stamps} (when long enough).
     * With futures, a round trip also waits for its send's future, as a caller of {@code send(...).join()} would.
     */
    private void pingPong(Worker worker, Endpoint ep, Peer peer, Buffer buffer, int size, int n, long[] stamps)
            throws RdmaException {
        boolean stamp = stamps.length >= n;
        for (int i = 0; i < n; i++) {
            long echoes = peer.received;
            if (stamp) {
                stamps[i] = System.nanoTime();
            }
            if (options.api() == EndpointPerfOptions.Api.FUTURE) {
                CompletableFuture<Long> sent = ep.send(buffer.region(), buffer.offset(), size);
                while (peer.received == echoes || !sent.isDone()) {
                    progressOrFail(worker, peer);
                }
                sent.join();
                continue;
            }
            while (!ep.trySend(buffer.region(), buffer.offset(), size, peer, null)) {
                progressOrFail(worker, peer);
            }
            while (peer.received == echoes) {
                progressOrFail(worker, peer);
            }
        }
    }

    /**
     * {@code n} messages of {@code size} bytes with up to the depth in flight, until the last one completed. After a
     * refusal the loop only progresses until {@code onWritable} says the endpoint takes messages again.
     */
    private void stream(Worker worker, Endpoint ep, Peer peer, Buffer buffer, int size, int n) throws RdmaException {
        long first = peer.completed;
        long posted = 0;
        while (peer.completed - first < n) {
            while (posted < n && !peer.blocked && posted - (peer.completed - first) < options.depth()) {
                if (options.api() == EndpointPerfOptions.Api.FUTURE) {
                    // Beyond the credits and queue slots a send waits in the endpoint's backlog: never refused.
                    ep.send(buffer.region(), buffer.offset(), size).whenComplete(peer);
                    posted++;
                } else if (ep.trySend(buffer.region(), buffer.offset(), size, peer, null)) {
                    posted++;
                } else {
                    peer.blocked = true;
                }
            }
            progressOrFail(worker, peer);
        }
    }

    private static void progressOrFail(Worker worker, Peer peer) throws RdmaException {
        worker.progress();
        if (peer.failure != null || peer.closed) {
            throw new IllegalStateException("the endpoint broke or closed mid-run", peer.failure);
        }
    }

    private static <T> void spin(Worker worker, CompletableFuture<T> future) throws RdmaException {
        while (!future.isDone()) {
            worker.progress();
        }
    }

    /** The local address the kernel's route to {@code server} leaves from: a UDP connect sends nothing. */
    static InetAddress routeTo(InetAddress server) throws IOException {
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(server, 9);
            return probe.getLocalAddress();
        }
    }

    /** Prints the client's results: a table, or one JSON document naming the test and the API. */
    static void print(EndpointPerfOptions options, PrintStream out, List<PerfResult> results) {
        if (options.json()) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                    "{\"test\":\"%s\",\"api\":\"%s\",\"depth\":%d,\"warmup\":%d,\"results\":[",
                    options.label(), options.api().label, options.depth(),
                    options.warmup()));
            for (int i = 0; i < results.size(); i++) {
                sb.append(i == 0 ? "" : ",");
                PerfReport.jsonRow(sb, results.get(i), false);
            }
            out.println(sb.append("]}"));
            return;
        }
        out.println(PerfReport.LINE);
        out.println(options.latency() ? PerfReport.LATENCY_HEADER : PerfReport.bandwidthHeader(false));
        results.forEach(r -> out.println(PerfReport.row(r, false)));
        out.println(PerfReport.LINE);
    }

    /**
     * Both sides' handler. It allocates nothing per message: the server's echo goes from one buffer of its own, and
     * the counters are plain fields, read by the same thread that runs the handler.
     */
    static final class Peer implements EndpointHandler, OperationHandler<Object>, BiConsumer<Long, Throwable> {
        private final boolean echo;
        Buffer reply;
        long received;
        long completed;
        boolean blocked;
        boolean closed;
        Throwable failure;

        Peer(boolean echo) {
            this.echo = echo;
        }

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage message) {
            int length = message.length();
            message.release();
            received++;
            if (echo) {
                try {
                    // The client waits for this echo before it sends again: the credit it took came back with
                    // the client's message, so a refusal here is a broken protocol, not back-pressure.
                    if (!endpoint.trySend(reply.region(), reply.offset(), length, this, null)) {
                        throw new IllegalStateException("the echo was refused");
                    }
                } catch (RdmaException e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        @Override
        public void onWritable(Endpoint endpoint) {
            blocked = false;
        }

        @Override
        public void onError(Endpoint endpoint, Throwable error) {
            failure = error;
        }

        @Override
        public void onClosed(Endpoint endpoint) {
            closed = true;
        }

        @Override
        public void completed(long bytes, Object attachment) {
            completed++;
        }

        @Override
        public void failed(Throwable error, Object attachment) {
            failure = error;
        }

        /** A send's future completed. */
        @Override
        public void accept(Long bytes, Throwable error) {
            if (error != null) {
                failure = error;
            } else {
                completed++;
            }
        }
    }
}
