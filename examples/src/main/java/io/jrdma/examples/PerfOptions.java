package io.jrdma.examples;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The command line of {@code jrdma perf TEST}: perftest's main options, checked up front.
 *
 * <pre>{@code
 * PerfOptions o = PerfOptions.parse(List.of("write-lat", "-x", "1", "-s", "64", "10.0.2.15"));
 * o.sizes();    // [64]
 * o.server();   // "10.0.2.15": this side is the client
 * }</pre>
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
    private static final String WARMUP = "--warmup";
    private static final String SIZES = "--sizes";
    private static final String CMD = "perf";

    /** Long option → its short name; {@code --report_gbits} and {@code --json} have none. */
    private static final Map<String, String> LONG = Map.ofEntries(
            Map.entry("--ib-dev", "-d"), Map.entry("--ib-port", "-i"), Map.entry("--gid-index", "-x"),
            Map.entry("--size", "-s"), Map.entry("--iters", "-n"), Map.entry("--all", "-a"),
            Map.entry("--duration", "-D"), Map.entry("--port", "-p"), Map.entry("--rdma_cm", "-R"),
            Map.entry("--tx-depth", "-t"), Map.entry("--inline_size", "-I"), Map.entry("--CPU-freq", "-F"),
            Map.entry("--noPeak", "-N"), Map.entry(WARMUP, WARMUP), Map.entry(SIZES, SIZES));

    /** The options that take a value. */
    private static final String VALUED = "dixsnDptI";

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

    /**
     * Parses {@code args}: the test name, then its options and at most one server.
     *
     * @throws IllegalArgumentException for an unknown test or option, a missing or out-of-range value
     */
    static PerfOptions parse(List<String> args) {
        if (args.isEmpty()) {
            throw new IllegalArgumentException(CMD + " needs a test: {send,write,read,atomic}-{lat,bw}");
        }
        PerfTest test = PerfTest.of(args.getFirst());
        String device = null;
        int ibPort = 1;
        Integer gid = null;
        Integer size = null;
        boolean all = false;
        Map<Integer, Integer> list = null;
        Integer iterations = null;
        int warmup = DEFAULT_WARMUP;
        int seconds = 0;
        int tcpPort = 18515;
        boolean gbits = false;
        boolean cm = false;
        int txDepth = test.defaultTxDepth();
        int inline = test.defaultInline();
        boolean json = false;
        boolean noPeak = false;
        List<String> operands = new ArrayList<>();
        for (int i = 1; i < args.size(); i++) {
            String a = args.get(i);
            String value = null;
            if (a.startsWith("--") && !a.equals("--report_gbits") && !a.equals("--json")) {
                int eq = a.indexOf('=');
                String name = LONG.get(eq < 0 ? a : a.substring(0, eq));
                if (name == null) {
                    throw new IllegalArgumentException(CMD + ": unknown option '" + a + "'");
                }
                if (eq >= 0) {
                    value = a.substring(eq + 1);
                }
                a = name;
            }
            if ((a.equals(WARMUP) || a.equals(SIZES) || a.length() == 2 && a.charAt(0) == '-' && VALUED.indexOf(a.charAt(1)) >= 0)
                    && value == null) {
                value = Args.value(CMD, args, i++);
            }
            switch (a) {
                case "-d" -> device = value;
                case "-i" -> ibPort = Args.number(CMD, a, value, 1, 255);
                case "-x" -> gid = Args.number(CMD, a, value, 0, 255);
                case "-s" -> size = Args.number(CMD, a, value, 1, MAX_SIZE);
                case "-a" -> all = true;
                case SIZES -> list = sizeList(value);
                case "-n" -> iterations = Args.number(CMD, a, value, MIN_ITERATIONS, 100_000_000);
                case WARMUP -> warmup = Args.number(CMD, a, value, 0, MAX_WARMUP);
                case "-D" -> seconds = Args.number(CMD, a, value, 1, 86_400);
                case "-p" -> tcpPort = Args.number(CMD, a, value, 1, 65535);
                case "-t" -> txDepth = Args.number(CMD, a, value, 1, 15000);
                case "-I" -> inline = Args.number(CMD, a, value, 0, 912);
                case "-R" -> cm = true;
                case "-N" -> noPeak = true;
                case "-F" -> { } // perftest's cpufreq warning: jrdma gives none
                case "--report_gbits" -> gbits = true;
                case "--json" -> json = true;
                default -> {
                    if (a.startsWith("-") && a.length() > 1) {
                        throw new IllegalArgumentException(CMD + ": unknown option '" + a + "'");
                    }
                    operands.add(a);
                }
            }
        }
        if (operands.size() > 1) {
            throw new IllegalArgumentException(CMD + ": one server at most, not " + operands);
        }
        if ((all ? 1 : 0) + (size != null ? 1 : 0) + (list != null ? 1 : 0) > 1) {
            throw new IllegalArgumentException(CMD + ": -s, -a and --sizes each choose the sizes: give one of them");
        }
        if (seconds > 0 && list != null && list.values().stream().anyMatch(n -> n > 0)) {
            throw new IllegalArgumentException(CMD + ": -D runs for a time: --sizes takes no counts with it");
        }
        if (seconds > 0 && iterations != null) {
            throw new IllegalArgumentException(CMD + ": -D runs for a time, -n for a count: give one of them");
        }
        if (test.verb() == PerfTest.Verb.ATOMIC && list != null) {
            throw new IllegalArgumentException(CMD + ": atomics are " + PerfTest.ATOMIC_SIZE + " bytes: no --sizes");
        }
        if (test.verb() == PerfTest.Verb.ATOMIC && size != null && size != PerfTest.ATOMIC_SIZE) {
            throw new IllegalArgumentException(CMD + ": atomics are " + PerfTest.ATOMIC_SIZE + " bytes, not -s "
                    + size);
        }
        if (test.latency() && txDepth != 1) {
            throw new IllegalArgumentException(CMD + ": latency tests keep one operation in flight: -t must be 1");
        }
        int iters = iterations != null ? iterations : test.defaultIterations();
        Map<Integer, Integer> counts = new LinkedHashMap<>();
        if (list != null) {
            list.forEach((s, n) -> {
                if (n > 0) {
                    counts.put(s, n);
                }
            });
        }
        boolean noPeakForAll = counts.values().stream().anyMatch(n -> n > NO_PEAK_ABOVE);
        return new PerfOptions(test, device, ibPort, gid, list != null ? List.copyOf(list.keySet())
                : sizes(test, all, size), iters, counts, warmup, seconds, tcpPort,
                gbits, cm, txDepth, inline, json, noPeak || iters > NO_PEAK_ABOVE || noPeakForAll,
                operands.isEmpty() ? null : operands.getFirst());
    }

    /**
     * {@code --sizes}: sizes in the order given, comma-separated, each with its own iteration count after a colon
     * or none (0: -n's).
     */
    private static Map<Integer, Integer> sizeList(String value) {
        Map<Integer, Integer> sizes = new LinkedHashMap<>();
        for (String item : value.split(",", -1)) {
            String[] parts = item.split(":", -1);
            if (parts.length > 2) {
                throw new IllegalArgumentException(CMD + ": --sizes takes SIZE or SIZE:ITERS items, not '" + item + "'");
            }
            int s = Args.number(CMD, SIZES, parts[0], 1, MAX_SIZE);
            int n = parts.length == 2 ? Args.number(CMD, SIZES, parts[1], MIN_ITERATIONS, 100_000_000) : 0;
            if (sizes.put(s, n) != null) {
                throw new IllegalArgumentException(CMD + ": --sizes names " + s + " twice");
            }
        }
        return sizes;
    }

    private static List<Integer> sizes(PerfTest test, boolean all, Integer size) {
        if (test.verb() == PerfTest.Verb.ATOMIC) {
            return List.of(PerfTest.ATOMIC_SIZE);
        }
        if (!all) {
            return List.of(size != null ? size : test.defaultSize());
        }
        List<Integer> sizes = new ArrayList<>();
        for (int s = 2; s <= MAX_SIZE; s *= 2) {
            sizes.add(s);
        }
        return List.copyOf(sizes);
    }

    static String usage() {
        return String.join("\n",
                "usage: jrdma perf TEST [OPTIONS]          start a server and wait for a client",
                "       jrdma perf TEST [OPTIONS] SERVER   connect to the server at SERVER",
                "  TEST is {send,write,read,atomic}-{lat,bw}, like perftest's ib_TEST (ib_write_lat, ib_send_bw, ...)",
                "  -d, --ib-dev=<dev>       use IB device <dev> (default first device found)",
                "  -i, --ib-port=<port>     use port <port> of the device (default 1)",
                "  -x, --gid-index=<index>  GID index (default on RoCE: the port's IPv4 RoCE v2 GID)",
                "  -s, --size=<size>        message size (default 2 for latency, 65536 for bandwidth; atomics: 8)",
                "  -a, --all                run sizes from 2 to 2^23",
                "      --sizes=<list>       run these sizes, in this order: SIZE or SIZE:ITERS items, comma-separated",
                "                           (ITERS overrides -n for that size), e.g. 64:50000,4096:16384,1048576:200",
                "  -n, --iters=<iters>      iterations per size (at least 5; default 1000 latency, 5000 bandwidth)",
                "  -D, --duration=<secs>    run each size for this many seconds instead of -n",
                "      --warmup=<iters>     untimed iterations of the test per size before the timed ones (default "
                        + DEFAULT_WARMUP + "; 0: none;",
                "                           at most " + (MAX_WARMUP_BYTES >> 20) + " MiB of messages per size)",
                "  -p, --port=<port>        listen on/connect to port <port> (default 18515)",
                "  -R, --rdma_cm            connect the queue pairs through rdma_cm (SERVER must be an IP address)",
                "  -t, --tx-depth=<dep>     sends in flight (default 128 for bandwidth, 1 for latency)",
                "  -I, --inline_size=<size> largest message sent inline (default 220 write-lat, 236 send-lat, else 0)",
                "  -F, --CPU-freq           accepted for perftest compatibility; ignored",
                "  -N, --noPeak             bandwidth: no peak, time only the first post and the last completion "
                        + "(always above " + NO_PEAK_ABOVE + " iterations)",
                "      --report_gbits       bandwidth in Gb/sec instead of MB/sec",
                "      --json               print the results as one JSON document instead of the tables",
                "  Both sides must run the same test with the same -s/-a/--sizes, -n, -D and --warmup.");
    }
}
