package io.jrdma.tool.perf;

import java.io.PrintStream;

/**
 * One side of a {@code jrdma endpoint-perf} run, of whichever API: the client, which measures and prints, or the
 * server, which answers until the client leaves.
 */
abstract sealed class EndpointPerfSide permits EndpointPerf, ConnectionPerf {
    final EndpointPerfOptions options;
    final PrintStream out;

    EndpointPerfSide(EndpointPerfOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** Runs the side the options name: the client if they name a server to connect to. */
    final void run() throws Exception {
        if (options.client()) {
            client();
        } else {
            server();
        }
    }

    abstract void client() throws Exception;

    abstract void server() throws Exception;

    /** {@code n} round trips, the start of each stamped into {@code stamps} when it is long enough. */
    interface RoundTrips {
        void run(int n, long[] stamps) throws Exception;
    }

    /** One size's ping-pong: its warm-up, a wait for the JIT to settle, then the timed round trips. */
    final PerfResult latency(int size, RoundTrips trips) throws Exception {
        int n = options.iterations(size);
        int w = options.warmup(size);
        long[] warmupStamps = new long[Math.max(w, 1)];
        Warmup.run(w, k -> trips.run(k, warmupStamps));
        long[] stamps = new long[n];
        long start = System.nanoTime();
        trips.run(n, stamps);
        long end = System.nanoTime();
        return PerfResult.latency(size, n, LatencyStatistics.ofStamps(stamps, n, 2)).withRun(start, end)
                .withWarmup(w);
    }
}
