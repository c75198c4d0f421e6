package io.jrdma.benchmarks;

import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.util.Version;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs {@link DataPathJava} (in both {@link io.jrdma.ibverbs.ThreadConfinement} modes) and {@link DataPathC}
 * operation by operation (the Java benchmarks right after their C twin, so that all see the same machine load) and
 * writes the side-by-side report.
 *
 * <pre>{@code
 * java -cp ... io.jrdma.benchmarks.BindingOverheadReport docs/binding-overhead.md 0.1.0-SNAPSHOT
 * }</pre>
 *
 * <p>Two optional arguments say how it was started and where it ran, for a report made elsewhere than on the host
 * itself (e.g. in an emulated guest): the command line shown as the report's generator, and a sentence on the placement.
 * </p>
 */
public final class BindingOverheadReport {
    /** The operations, in report order, with what one of them is. */
    private static final Map<String, String> OPERATIONS = ordered(
            "postSend", "post one SEND (1 SGE)",
            "postReceive", "post one receive (1 SGE)",
            "postSendChain16", "post a chain of 16 SENDs (one call)",
            "poll1", "poll 1 completion, read status and id",
            "poll16", "poll 16 completions, read each status and id",
            "requestNotification", "arm the CQ (req_notify_cq)");
    private static final String NOTES_START = "<!-- analysis: kept when the report is regenerated -->\n";
    private static final String NOTES_END = "<!-- end of analysis -->\n";
    private static final int FORKS = Integer.getInteger("forks", 2);
    private static final int WARMUPS = Integer.getInteger("warmups", 5);
    private static final int ITERATIONS = Integer.getInteger("iterations", 100);
    /** Short measured iterations: on a shared machine, some of them run without being preempted. */
    private static final int MILLIS = Integer.getInteger("millis", 10);
    /** The columns of one operation: C, then Java with a shared and with a confined queue pair and CQ. */
    private static final String[] SIDES = {"C", "SHARED", "CONFINED"};

    private BindingOverheadReport() {
    }

    /**
     * A benchmark's outcome over all its measured iterations, and bytes allocated per operation: the median over the
     * iterations, because an iteration the machine starved runs a handful of operations, and JMH's own allocation in
     * that iteration (a few KiB) divided by them would read as thousands of bytes per operation.
     */
    private record Score(double best, double median, double mean, double bytesPerOp) {
        static Score of(RunResult r) {
            var stats = r.getPrimaryResult().getStatistics();
            Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
            return new Score(stats.getMin(), stats.getPercentile(50), stats.getMean(),
                    alloc == null ? Double.NaN : alloc.getStatistics().getPercentile(50));
        }
    }

    public static void main(String[] args) throws RunnerException, IOException {
        if (args.length < 2 || args.length > 4) {
            System.err.println("usage: BindingOverheadReport REPORT.md JRDMA_VERSION [COMMAND [PLACEMENT]]");
            System.exit(2);
        }
        String command = args.length > 2 ? args[2] : "scripts/bench-overhead";
        String placement = args.length > 3 ? args[3] : null;
        Path report = Path.of(args[0]);
        String notes = notes(report);
        String loadBefore = loadAverage();
        Map<String, Map<String, Score>> scores = new TreeMap<>();
        for (String op : OPERATIONS.keySet()) {
            Options options = new OptionsBuilder()
                    .include("^" + DataPathC.class.getName() + "\\." + op + "$")
                    .include("^" + DataPathJava.class.getName() + "\\." + op + "$")
                    .addProfiler(GCProfiler.class)
                    .forks(FORKS).warmupIterations(WARMUPS).measurementIterations(ITERATIONS)
                    .warmupTime(TimeValue.seconds(1)).measurementTime(TimeValue.milliseconds(MILLIS))
                    .build();
            Collection<RunResult> results = new Runner(options).run();
            Map<String, Score> sides = new TreeMap<>();
            for (RunResult r : results) {
                boolean java = r.getParams().getBenchmark().startsWith(DataPathJava.class.getName());
                sides.put(java ? r.getParams().getParam("confinement") : "C", Score.of(r));
            }
            scores.put(op, sides);
        }
        Files.writeString(report, report(scores, args[1], command, placement, notes, loadBefore, loadAverage()));
        System.out.println("wrote " + args[0]);
    }

    private static String report(Map<String, Map<String, Score>> scores, String version, String command,
                                 String placement, String notes, String loadBefore, String loadAfter)
            throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# Binding overhead: jrdma's Java data path against the same calls from C\n\n");
        md.append("Generated by `").append(command).append("` on ").append(LocalDate.now()).append(". ");
        md.append("""
                Both sides call the same test provider (`native-test`'s `test-provider.c`): a device context,
                protection domain, memory region, completion queue and queue pair in plain memory whose data-path
                ops are trivial C functions (a post walks its chain and counts it; a poll copies a prepared
                completion into every entry it is given). The Java side is jrdma's own data path, unchanged
                (`QueuePair.postSend`/`postReceive`, `CompletionQueue.poll`/`requestNotification` with reusable
                requests and completions), measured twice: with a shared queue pair and completion queue (the
                default: any thread may use them, and each call counts itself in and out with two atomics so that
                another thread's close waits for it) and with confined ones (`ThreadConfinement.CONFINED`: one
                thread only, checked instead of counted). The C side is a loop of verbs.h's inline verbs, as a C
                application calls them, run by one downcall per 10,000 operations. What the provider does is the
                same on all sides, so the difference is what the binding adds per call. A real device's provider
                adds the same cost to all (hundreds of nanoseconds for a doorbell or a cache-missing CQE), so for an
                application the ratio below is an upper bound and the difference is what counts.

                """);
        md.append("| operation | C ns/op | shared ns/op | shared/C | shared − C | confined ns/op | confined/C "
                + "| confined − C |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        Map<String, double[]> single = new LinkedHashMap<>();   // mode -> {max delta, max ratio}
        for (Map.Entry<String, String> e : OPERATIONS.entrySet()) {
            Map<String, Score> sides = scores.get(e.getKey());
            double c = sides.get("C").best();
            md.append("| ").append(e.getValue()).append(String.format(Locale.ROOT, " | %.1f", c));
            for (String mode : new String[] {"SHARED", "CONFINED"}) {
                double java = sides.get(mode).best();
                md.append(String.format(Locale.ROOT, " | %.1f | %.2f | %.1f", java, java / c, java - c));
                if (!e.getKey().endsWith("16")) {
                    double[] max = single.computeIfAbsent(mode, m -> new double[2]);
                    max[0] = Math.max(max[0], java - c);
                    max[1] = Math.max(max[1], java / c);
                }
            }
            md.append(" |\n");
        }
        md.append("""

                ns/op is the best measured iteration: each benchmark runs %d iterations of %d ms per fork, and on
                this shared machine most of them include time the thread was preempted by other work, which only
                ever adds. The best iteration is the cost of the code itself, and it is stable from run to run;
                the median and the mean (JMH's score) below show how much the machine's load added. B/op is JMH's
                `gc.alloc.rate.norm` (GC profiler) per operation, the median over the iterations (an iteration the
                machine starved runs few operations, over which JMH's own few KiB per iteration are spread), shown
                as 0 below 0.01 (JMH's own sampling leaves a few thousandths).

                """.formatted(ITERATIONS, MILLIS));
        md.append("| operation | C median | shared median | confined median | C mean | shared mean | confined mean "
                + "| C B/op | shared B/op | confined B/op |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        double maxBytes = 0;
        for (Map.Entry<String, String> e : OPERATIONS.entrySet()) {
            Map<String, Score> sides = scores.get(e.getKey());
            md.append("| ").append(e.getValue());
            for (String side : SIDES) {
                md.append(String.format(Locale.ROOT, " | %.1f", sides.get(side).median()));
            }
            for (String side : SIDES) {
                md.append(String.format(Locale.ROOT, " | %.1f", sides.get(side).mean()));
            }
            for (String side : SIDES) {
                md.append(" | ").append(bytes(sides.get(side).bytesPerOp()));
                if (!side.equals("C")) {
                    maxBytes = Math.max(maxBytes, sides.get(side).bytesPerOp());
                }
            }
            md.append(" |\n");
        }
        md.append("\n## Reading\n\n");
        for (String mode : new String[] {"SHARED", "CONFINED"}) {
            double[] max = single.get(mode);
            md.append(String.format(Locale.ROOT, """
                    - %s: for one request, completion or arm per call, Java adds at most %.1f ns over C (Java/C at
                      most %.2f); a chain of 16 requests costs %.1f ns more per request, a poll of 16 completions
                      (each read) %.1f ns more per completion.
                    """, mode.equals("SHARED") ? "Shared" : "Confined", max[0], max[1],
                    delta(scores, "postSendChain16", mode) / 16, delta(scores, "poll16", mode) / 16));
        }
        md.append(String.format(Locale.ROOT, """
                - The Java side checks every request and reads every completion; the confined mode saves the close
                  guard's two atomics on each call.
                - The data path allocates %s.

                """, maxBytes < 1 ? "nothing per operation in either mode (under 1 B/op everywhere: what shows is "
                        + "JMH's own per-iteration allocation spread over the operations, as on the C side; one "
                        + "object per operation would be at least 16 B/op)" : "up to " + bytes(maxBytes) + " B/op"));
        md.append(NOTES_START).append(notes).append(NOTES_END);
        md.append("\n## Machine and settings\n\n");
        md.append("- CPU: ").append(cpuModel()).append(", ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores; kernel ").append(System.getProperty("os.name")).append(' ')
                .append(System.getProperty("os.version")).append('\n');
        if (placement != null) {
            md.append("- Placement: ").append(placement).append('\n');
        }
        md.append("- Load average (1, 5, 15 min) before: ").append(loadBefore).append("; after: ").append(loadAfter)
                .append(" (the machine is shared: other work ran during the measurement)\n");
        md.append("- JDK: ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.runtime.version")).append("; jrdma ").append(version).append('\n');
        md.append(String.format(Locale.ROOT, "- JMH %s: %d forks, %d warm-up iterations of 1 s and %d measured "
                        + "iterations of %d ms each, average time, `-prof gc`; the C loops run 10,000 operations per "
                        + "invocation (`@OperationsPerInvocation`)%n", Version.getPlainVersion(), FORKS, WARMUPS,
                ITERATIONS, MILLIS));
        md.append("- Test provider compiled with `cc -O2`\n");
        return md.toString();
    }

    private static double delta(Map<String, Map<String, Score>> scores, String op, String mode) {
        return scores.get(op).get(mode).best() - scores.get(op).get("C").best();
    }

    /** The hand-written analysis of the previous report, kept across runs. */
    private static String notes(Path report) throws IOException {
        String old = Files.exists(report) ? Files.readString(report) : "";
        int start = old.indexOf(NOTES_START);
        int end = old.indexOf(NOTES_END);
        return start >= 0 && end > start ? old.substring(start + NOTES_START.length(), end)
                : "\n(What the difference is made of: add the profile's reading here.)\n\n";
    }

    private static String bytes(double b) {
        return Double.isNaN(b) ? "n/a" : b < 0.01 ? "0" : String.format(Locale.ROOT, "%.2f", b);
    }

    private static String cpuModel() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return "unknown";
    }

    private static String loadAverage() throws IOException {
        String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
        return f[0] + ", " + f[1] + ", " + f[2];
    }

    private static Map<String, String> ordered(String... keyValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }
}
