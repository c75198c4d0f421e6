package io.jrdma.tool.perf;

import io.jrdma.tool.ToolCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code jrdma perf {send,write,read,atomic}-{lat,bw} [OPTIONS] [SERVER]}: perftest's {@code ib_*_lat} and
 * {@code ib_*_bw} in Java, with their main options and their result tables (or {@code --json}). Without SERVER it
 * waits for a client; the client measures, and the server prints what it measured too (ping-pongs) or the client's
 * bandwidth results.
 *
 * {@snippet lang=shell :
 * $ jrdma perf write-lat -x 1 -s 64               # server
 * $ jrdma perf write-lat -x 1 -s 64 10.0.2.15     # client
 * }
 */
@Command(name = "perf", sortOptions = false,
        description = {"perftest-style latency and bandwidth tests (ib_write_lat, ib_send_bw, ...) with perftest's "
                + "tables or --json.", "Without SERVER, start a server and wait for a client."},
        footer = "Both sides must run the same test with the same -s/-a/--sizes, -n, -D and --warmup.")
public final class PerfCommand extends ToolCommand {
    private static final int MAX_ITERATIONS = 100_000_000;

    @Parameters(index = "0", paramLabel = "TEST", converter = TestName.class,
            description = "{send,write,read,atomic}-{lat,bw}, like perftest's ib_TEST")
    private PerfTest test;

    @Parameters(index = "1..*", paramLabel = "[SERVER]", hideParamSyntax = true,
            description = "the server to connect to")
    private List<String> servers = new ArrayList<>();

    @Mixin
    private LinkOptions connection;

    @Option(names = {"-s", "--size"}, paramLabel = "<size>",
            description = "message size (default 2 for latency, 65536 for bandwidth; atomics: 8)")
    private Integer size;

    @Option(names = {"-a", "--all"}, description = "run sizes from 2 to 2^23")
    private boolean all;

    @Option(names = "--sizes", paramLabel = "<list>",
            description = {"run these sizes, in this order: SIZE or SIZE:ITERS items, comma-separated (ITERS "
                    + "overrides -n for that size),", "e.g. 64:50000,4096:16384,1048576:200"})
    private String sizeList;

    @Option(names = {"-n", "--iters"}, paramLabel = "<iters>",
            description = "iterations per size (at least " + PerfOptions.MIN_ITERATIONS
                    + "; default 1000 latency, 5000 bandwidth)")
    private Integer iterations;

    @Option(names = {"-D", "--duration"}, paramLabel = "<secs>",
            description = "run each size for this many seconds instead of -n")
    private int seconds;

    @Option(names = "--warmup", paramLabel = "<iters>",
            description = "untimed iterations of the test per size before the timed ones (default ${DEFAULT-VALUE}; "
                    + "0: none; at most " + (PerfOptions.MAX_WARMUP_BYTES >> 20) + " MiB of messages per size)")
    private int warmup = PerfOptions.DEFAULT_WARMUP;

    @Option(names = {"-R", "--rdma_cm"},
            description = "connect the queue pairs through rdma_cm (SERVER must be an IP address)")
    private boolean rdmaCm;

    @Option(names = {"-t", "--tx-depth"}, paramLabel = "<dep>",
            description = "sends in flight (default 128 for bandwidth, 1 for latency)")
    private Integer txDepth;

    @Option(names = {"-I", "--inline_size"}, paramLabel = "<size>",
            description = "largest message sent inline (default 220 write-lat, 236 send-lat, else 0)")
    private Integer inlineSize;

    @Option(names = {"-F", "--CPU-freq"}, description = "accepted for perftest compatibility; ignored")
    private boolean cpuFrequency;

    @Option(names = {"-N", "--noPeak"}, description = "bandwidth: no peak, time only the first post and the last "
            + "completion (always above " + PerfOptions.NO_PEAK_ABOVE + " iterations)")
    private boolean noPeak;

    @Option(names = "--report_gbits", description = "bandwidth in Gb/sec instead of MB/sec")
    private boolean reportGbits;

    @Option(names = "--json", description = "print the results as one JSON document instead of the tables")
    private boolean json;

    /** The command, printing to {@code out} and its progress to {@code err}. */
    public PerfCommand(PrintStream out, PrintStream err) {
        super(out, err);
    }

    @Override
    public Integer call() throws Exception {
        PerfOptions options = options();
        PerfReport report = new PerfReport(options, out);
        if (!options.client() && !options.json()) {
            out.println("\n************************************\n* Waiting for client to connect... *\n"
                    + "************************************");
        }
        // Progress only where someone watches: never into a pipe, a file or a test's captured output.
        PrintStream progress = System.console() != null ? err : null;
        try (PerfLink link = PerfLink.open(options);
             PerfSession session = new PerfSession(options, link, report, progress)) {
            report.banner(link.context().device().name(), link.linkType(), link.gidIndex());
            session.run();
        }
        report.finish();
        return 0;
    }

    /** The options, checked as a whole: the ranges, and the options that exclude each other. */
    PerfOptions options() {
        if (servers.size() > 1) {
            throw usage("one server at most, not " + servers);
        }
        connection.check(this);
        if (size != null) {
            check("-s", size, 1, PerfOptions.MAX_SIZE);
        }
        Map<Integer, Integer> list = sizeList != null ? sizeList(this, "--sizes", sizeList, MAX_ITERATIONS) : null;
        if (iterations != null) {
            check("-n", iterations, PerfOptions.MIN_ITERATIONS, MAX_ITERATIONS);
        }
        check("--warmup", warmup, 0, PerfOptions.MAX_WARMUP);
        if (seconds != 0) {
            check("-D", seconds, 1, 86_400);
        }
        int depth = check("-t", txDepth != null ? txDepth : test.defaultTxDepth(), 1, 15000);
        int inline = check("-I", inlineSize != null ? inlineSize : test.defaultInline(), 0, 912);
        if ((all ? 1 : 0) + (size != null ? 1 : 0) + (list != null ? 1 : 0) > 1) {
            throw usage("-s, -a and --sizes each choose the sizes: give one of them");
        }
        if (seconds > 0 && list != null && list.values().stream().anyMatch(n -> n > 0)) {
            throw usage("-D runs for a time: --sizes takes no counts with it");
        }
        if (seconds > 0 && iterations != null) {
            throw usage("-D runs for a time, -n for a count: give one of them");
        }
        if (test.verb() == PerfTest.Verb.ATOMIC && list != null) {
            throw usage("atomics are " + PerfTest.ATOMIC_SIZE + " bytes: no --sizes");
        }
        if (test.verb() == PerfTest.Verb.ATOMIC && size != null && size != PerfTest.ATOMIC_SIZE) {
            throw usage("atomics are " + PerfTest.ATOMIC_SIZE + " bytes, not -s " + size);
        }
        if (test.latency() && depth != 1) {
            throw usage("latency tests keep one operation in flight: -t must be 1");
        }
        int iters = iterations != null ? iterations : test.defaultIterations();
        Map<Integer, Integer> counts = ownCounts(list);
        boolean noPeakForAll = counts.values().stream().anyMatch(n -> n > PerfOptions.NO_PEAK_ABOVE);
        return new PerfOptions(test, connection.device, connection.ibPort, connection.gidIndex,
                list != null ? List.copyOf(list.keySet()) : sizes(), iters, counts, warmup, seconds, connection.tcpPort, reportGbits, rdmaCm, depth, inline, json,
                noPeak || iters > PerfOptions.NO_PEAK_ABOVE || noPeakForAll,
                servers.isEmpty() ? null : servers.getFirst());
    }

    /**
     * A list of sizes, as {@code --sizes} takes it: sizes in the order given, comma-separated, each with its own
     * iteration count after a colon or none (0: -n's). {@code jrdma endpoint-perf} takes the same list.
     */
    static Map<Integer, Integer> sizeList(ToolCommand command, String option, String value, int maxIterations) {
        Map<Integer, Integer> sizes = new LinkedHashMap<>();
        for (String item : value.split(",", -1)) {
            String[] parts = item.split(":", -1);
            if (parts.length > 2) {
                throw command.usage(option + " takes SIZE or SIZE:ITERS items, not '" + item + "'");
            }
            int s = command.parse(option, parts[0], 1, PerfOptions.MAX_SIZE);
            int n = parts.length == 2
                    ? command.parse(option, parts[1], PerfOptions.MIN_ITERATIONS, maxIterations) : 0;
            if (sizes.put(s, n) != null) {
                throw command.usage(option + " names " + s + " twice");
            }
        }
        return sizes;
    }

    /** The sizes of a {@link #sizeList} that have a count of their own, with it; none without a list. */
    static Map<Integer, Integer> ownCounts(Map<Integer, Integer> list) {
        Map<Integer, Integer> counts = new LinkedHashMap<>();
        if (list != null) {
            list.forEach((s, n) -> {
                if (n > 0) {
                    counts.put(s, n);
                }
            });
        }
        return counts;
    }

    /** The sizes without --sizes: the test's, -s, or with -a every power of two from 2 to {@code MAX_SIZE}. */
    private List<Integer> sizes() {
        if (test.verb() == PerfTest.Verb.ATOMIC) {
            return List.of(PerfTest.ATOMIC_SIZE);
        }
        if (!all) {
            return List.of(size != null ? size : test.defaultSize());
        }
        List<Integer> sizes = new ArrayList<>();
        for (int s = 2; s <= PerfOptions.MAX_SIZE; s *= 2) {
            sizes.add(s);
        }
        return List.copyOf(sizes);
    }

    /** The TEST operand. */
    static final class TestName implements ITypeConverter<PerfTest> {
        @Override
        public PerfTest convert(String value) {
            try {
                return PerfTest.of(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
