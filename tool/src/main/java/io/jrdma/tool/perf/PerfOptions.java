package io.jrdma.tool.perf;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The options of {@code jrdma perf TEST}, perftest's main options, as {@link PerfCommand} checked them, and what
 * follows from them per size.
 *
 * @param test        which test (write-lat, send-bw, ...)
 * @param device      device name (-d), or {@code null} for the first device
 * @param ibPort      device port (-i)
 * @param gidIndex    GID index (-x), or {@code null} to pick the port's IPv4 RoCE GID on Ethernet
 * @param sizes       message sizes: one, (-a) all powers of two from 2 to 2^23, or a list (--sizes)
 * @param iterations  iterations per size (-n), where {@code sizeIterations} names none
 * @param sizeIterations iterations of the sizes --sizes gave a count of ({@code SIZE:ITERS})
 * @param warmup      untimed iterations per size before the measured ones (--warmup); see {@link #warmup(int)}
 * @param seconds     run each size this long instead (-D), or 0
 * @param tcpPort     TCP port of the exchange, or the rdma_cm port with -R (-p)
 * @param reportGbits bandwidth in Gb/s instead of MB/s (--report_gbits)
 * @param rdmaCm      connect through rdma_cm (-R)
 * @param txDepth     sends kept in flight (-t)
 * @param inlineSize  largest message sent inline (-I)
 * @param json        print one JSON document instead of the tables (--json)
 * @param noPeak      bandwidth without the peak (-N): time only the first post and the last completion
 * @param server      the server to connect to, or {@code null} to be the server
 */
record PerfOptions(PerfTest test, String device, int ibPort, Integer gidIndex, List<Integer> sizes, int iterations,
                   Map<Integer, Integer> sizeIterations, int warmup, int seconds, int tcpPort, boolean reportGbits, boolean rdmaCm, int txDepth,
                   int inlineSize, boolean json, boolean noPeak, String server) {

    static final int MAX_SIZE = 1 << 23;
    static final int MIN_ITERATIONS = 5;
    /** Above this many iterations perftest leaves the peak out of bandwidth tests by itself. */
    static final int NO_PEAK_ABOVE = 20_000;
    /**
     * Untimed iterations per size by default: four times HotSpot's tier-4 invocation threshold (5000), as the calls
     * count only once the first tier's code runs and the threshold grows with the compiler's queue. With 5000, the
     * JIT log of read-lat in the Soft-RoCE VM showed the post, the poll and the loop's step compiled by the optimizing
     * tier during the first size's timed run. perftest, in C, needs none.
     */
    static final int DEFAULT_WARMUP = 20_000;
    /** The most --warmup takes: the warm-up records its stamps like a measured run, 8 bytes each. */
    static final int MAX_WARMUP = 1_000_000;
    /**
     * A warm-up moves at most this much per size: large messages leave the per-message path, which the warm-up is
     * for, little weight (and the sizes before them have compiled it), and 20,000 messages of 1 MiB would take
     * minutes on a slow device.
     */
    static final long MAX_WARMUP_BYTES = 64L << 20;
    /**
     * Options for a {@link PerfLink} alone: other commands ({@code jrdma blocks}) connect their queue pairs the way
     * perf does. The test fields are write-lat's defaults and mean nothing to the link.
     */
    static PerfOptions link(String device, int ibPort, Integer gidIndex, int tcpPort, String server) {
        PerfTest test = PerfTest.of("write-lat");
        return new PerfOptions(test, device, ibPort, gidIndex, List.of(test.defaultSize()), test.defaultIterations(),
                Map.of(), 0, 0, tcpPort, false, false, test.defaultTxDepth(), 0, false, false, server);
    }

    /** Whether this side is the client. */
    boolean client() {
        return server != null;
    }

    PerfOptions {
        sizeIterations = Map.copyOf(sizeIterations);
    }

    int maxSize() {
        return sizes.stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    /** The iterations of {@code size}: its count from --sizes, else -n. */
    int iterations(int size) {
        return sizeIterations.getOrDefault(size, iterations);
    }

    /** The warm-up of {@code size}: --warmup, at most {@link #MAX_WARMUP_BYTES} of messages. */
    int warmup(int size) {
        return (int) Math.min(warmup, Math.max(1, MAX_WARMUP_BYTES / size));
    }

    /** The most iterations of any size's warm-up, and of its counted run unless -D times it. */
    int mostIterations() {
        return sizes.stream().mapToInt(s -> Math.max(seconds > 0 ? 0 : iterations(s), warmup(s))).max().orElseThrow();
    }

    /** What both sides must agree on; the exchange refuses a peer that differs. */
    String setup() {
        return test.label() + " sizes=" + sizes + " n=" + iterations + " " + new TreeMap<>(sizeIterations)
                + " D=" + seconds + " warmup=" + warmup;
    }
}
