package io.jrdma.benchmarks.report;

import io.jrdma.benchmarks.report.CpuSample.Kind;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Turns the results directory of {@code scripts/profile} into {@code profile-TEST.md}: where the clients of a jrdma tool
 * and its C counterpart spend their measured runs of one test (read-lat, write-lat, send-lat, write-bw, send-bw,
 * rstream-lat, rstream-bw, endpoint-lat, endpoint-rate or netty-lat) on the same device. The directory
 * holds {@code env.txt} ({@code key=value} lines; {@code iterations} and {@code frequency} are required, {@code test}
 * is read-lat where absent) and, per round R, {@code round-R/c.txt} (perftest's output), {@code round-R/java.json}
 * ({@code jrdma perf --json}, {@code jrdma endpoint-perf --json} or NettyPerf's JSON) and
 * {@code round-R/SIDE.client.perf.txt} / {@code SIDE.server.perf.txt} ({@code perf script} of each process).
 *
 * <pre>{@code
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/jmh-classpath.txt)" \
 *     io.jrdma.benchmarks.report.ProfileReport target/profile docs
 * }</pre>
 */
public final class ProfileReport {
    private static final int TOP = 12;
    /** Where jrdma perf says its measured run began and ended, on CLOCK_MONOTONIC, in nanoseconds. */
    private static final Pattern RUN_SPAN = Pattern.compile("\"run_monotonic_ns\":\\[(\\d+),(\\d+)]");

    private ProfileReport() {
    }

    /**
     * What the page says of its test: the C tool, what one operation is, and the result it compares (read-lat's
     * typical latency, a bandwidth test's average MB/s).
     */
    private enum Test {
        READ_LAT("read-lat", "read", "read", "Typical µs", "Median typical latency", "µs"),
        WRITE_LAT("write-lat", "write", "round trip", "Typical µs", "Median typical latency", "µs"),
        SEND_LAT("send-lat", "send", "round trip", "Typical µs", "Median typical latency", "µs"),
        WRITE_BW("write-bw", "write", "message", "MB/s", "Median bandwidth", "MB/s"),
        SEND_BW("send-bw", "send", "message", "MB/s", "Median bandwidth", "MB/s"),
        /** jrdma-endpoint's ping-pong (trySend and onMessage) against perftest's ib_send_lat. */
        ENDPOINT_LAT("endpoint-lat", "send", "round trip", "Typical µs", "Median typical latency", "µs"),
        /** jrdma-endpoint's pipelined messages against perftest's ib_send_bw, the same number in flight. */
        ENDPOINT_RATE("endpoint-rate", "send", "message", "MB/s", "Median bandwidth", "MB/s"),
        /** jrdma-netty's echo ping-pong (NettyPerf lat, in a Netty pipeline) against perftest's ib_send_lat. */
        NETTY_LAT("netty-lat", "send", "round trip", "Typical µs", "Median typical latency", "µs"),
        /** rstream's test over rsockets, one transfer each way an iteration: two transfers an iteration. */
        RSTREAM_LAT("rstream-lat", "transfer", "transfer", "µs per transfer", "Median µs per transfer (rstream's "
                + "usec/xfer)", "µs"),
        /** rstream's bandwidth test over rsockets: one iteration of many transfers one way, then as many back. */
        RSTREAM_BW("rstream-bw", "transfer", "transfer", "µs per transfer", "Median µs per transfer (rstream's "
                + "usec/xfer, the inverse of its bandwidth)", "µs");

        final String id;
        final String verb;
        final String operation;
        final String resultColumn;
        final String resultReading;
        final String unit;

        Test(String id, String verb, String operation, String resultColumn, String resultReading, String unit) {
            this.id = id;
            this.verb = verb;
            this.operation = operation;
            this.resultColumn = resultColumn;
            this.resultReading = resultReading;
            this.unit = unit;
        }

        static Test of(Map<String, String> env) {
            String name = env.getOrDefault("test", "read-lat");
            for (Test t : values()) {
                if (t.id.equals(name)) {
                    return t;
                }
            }
            throw new IllegalArgumentException("profile of an unknown test: " + name);
        }

        /** Whether each side answers the other's message: both busy-poll in user space, neither loop is in the kernel. */
        boolean pingPong() {
            return this == WRITE_LAT || this == SEND_LAT || this == RSTREAM_LAT || this == ENDPOINT_LAT
                    || this == NETTY_LAT;
        }

        /** Whether the tools are rstream and jrdma rstream, which report only how long their timed loop took. */
        boolean rstream() {
            return this == RSTREAM_LAT || this == RSTREAM_BW;
        }

        String cTool() {
            return switch (this) {
                case RSTREAM_LAT, RSTREAM_BW -> "rstream";
                case ENDPOINT_LAT, NETTY_LAT -> "ib_send_lat";
                case ENDPOINT_RATE -> "ib_send_bw";
                default -> "ib_" + id.replace('-', '_');
            };
        }

        String javaTool() {
            return switch (this) {
                case RSTREAM_LAT, RSTREAM_BW -> "jrdma rstream";
                case ENDPOINT_LAT, ENDPOINT_RATE -> "jrdma endpoint-perf";
                case NETTY_LAT -> "jrdma-netty's echo (NettyPerf lat)";
                default -> "jrdma perf";
            };
        }

        /**
         * Operations per unit of the run's {@code iterations}: rstream's latency test moves one transfer each way an
         * iteration; its bandwidth test's {@code iterations} are the transfers each way of its one iteration.
         */
        int operationsPerIteration() {
            return rstream() ? 2 : 1;
        }

        /** The C tool's result. */
        Measurement cResult(String text, int size) {
            return rstream() ? Measurement.rstream(text, size) : Measurement.perftest(text).getFirst();
        }

        /** The Java tool's result. */
        Measurement javaResult(String text, int size) {
            return rstream() ? Measurement.rstream(text, size) : Measurement.jrdmaJson(text).getFirst();
        }

        /** The file of a side's (c or java) result in a round. */
        String output(String side) {
            return rstream() ? side + ".txt" : side.equals("c") ? "c.txt" : "java.json";
        }

        double result(RunProfile r) {
            return r.result().isLatency() ? r.result().typicalMicros() : r.result().mbPerSecond();
        }
    }

    public static void main(String[] args) throws IOException {
        BenchReport.Directories dirs = BenchReport.Directories.of(args, "ProfileReport");
        Path results = dirs.results();
        Map<String, String> env = BenchReport.environment(Files.readString(results.resolve("env.txt")));
        Path page = dirs.docs().resolve(pageName(env));
        List<RunProfile> runs = collect(results, env);
        Files.createDirectories(Path.of(args[1]));
        Files.writeString(page, markdown(env, runs));
        System.out.println("profile: wrote " + page);
    }

    /**
     * {@code profile-TEST.md}; an endpoint-rate at another depth than scripts/bench-endpoint's 128 in flight gets a
     * page of its own, {@code profile-endpoint-rateN.md}, and a test at another size than 64 B one named with its
     * size, {@code profile-TEST-BYTES.md}, so that each can be committed beside the others.
     */
    static String pageName(Map<String, String> env) {
        String depth = env.getOrDefault("depth", "128");
        String size = env.getOrDefault("size", "64");
        String suffix = (Test.of(env) == Test.ENDPOINT_RATE && !depth.equals("128") ? depth : "")
                + (size.equals("64") ? "" : "-" + size);
        return "profile-" + Test.of(env).id + suffix + ".md";
    }

    /** Every round's C and Java run, in round order, C first. */
    static List<RunProfile> collect(Path results, Map<String, String> env) throws IOException {
        Test test = Test.of(env);
        int iterations = Integer.parseInt(env.get("iterations")) * test.operationsPerIteration();
        int frequency = Integer.parseInt(env.get("frequency"));
        int size = Integer.parseInt(env.getOrDefault("size", "0"));
        boolean pingPong = test.pingPong();
        List<RunProfile> runs = new ArrayList<>();
        for (int r = 1; Files.isDirectory(results.resolve("round-" + r)); r++) {
            Path round = results.resolve("round-" + r);
            for (String side : List.of("c", "java")) {
                String text = Files.readString(round.resolve(test.output(side)));
                Measurement result = side.equals("c") ? test.cResult(text, size) : test.javaResult(text, size);
                String name = (side.equals("c") ? "C " : "Java ") + r;
                List<CpuSample> client = CpuSample.parse(Files.readString(round.resolve(side + ".client.perf.txt")));
                List<CpuSample> server = CpuSample.parse(Files.readString(round.resolve(side + ".server.perf.txt")));
                Matcher span = RUN_SPAN.matcher(text);
                if (side.equals("java") && span.find()) {
                    runs.add(RunProfile.between(name, result, client, server, Long.parseLong(span.group(1)) / 1e9,
                            Long.parseLong(span.group(2)) / 1e9, iterations, frequency));
                } else if (test.rstream()) {
                    runs.add(RunProfile.lasting(name, result, client, server, Measurement.rstreamSeconds(text),
                            iterations, frequency));
                } else if (pingPong) {
                    runs.add(RunProfile.spinning(name, result, client, server, iterations, frequency));
                } else {
                    runs.add(RunProfile.of(name, result, client, server, iterations, frequency));
                }
            }
        }
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("no round-1 directory in " + results);
        }
        return runs;
    }

    static String markdown(Map<String, String> env, List<RunProfile> runs) {
        List<RunProfile> c = runs.stream().filter(r -> r.name().startsWith("C")).toList();
        List<RunProfile> java = runs.stream().filter(r -> r.name().startsWith("Java")).toList();
        Test test = Test.of(env);
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "# Where a %s's time goes: %s and %s under perf on Soft-RoCE%n%n",
                test.operation, test.javaTool(), test.cTool()));
        md.append(String.format(Locale.ROOT, "Generated by `scripts/profile` on %s. %s at %s B, %s %ss a run "
                        + "(%s first runs %s untimed), C and Java alternating over %d round(s) in one VM boot. "
                        + "`perf record -k CLOCK_MONOTONIC -e cpu-clock -F %s` samples each client and each server process.%n%n",
                env.get("date"), test.id, env.get("size"), switch (test) {
                    case RSTREAM_LAT -> env.get("iterations") + " iterations of one transfer each way, "
                            + Integer.parseInt(env.get("iterations")) * test.operationsPerIteration();
                    case RSTREAM_BW -> "one iteration of " + env.get("iterations") + " transfers one way and as "
                            + "many back, " + Integer.parseInt(env.get("iterations")) * test.operationsPerIteration();
                    default -> env.get("iterations");
                }, test.operation, test.javaTool(),
                env.get("warmup"), c.size(), env.get("frequency")));
        if (test.rstream()) {
            md.append("""
                    Neither rstream nor jrdma rstream reports where its timed loop began and ended, only how long it \
                    took (the result line's time). So each client's measured run is that long and ends where the \
                    client last spins: at the end of the last stretch in which its busiest thread is on a CPU at \
                    least 80% of the time (whole tenths of a second, gaps of up to 0.4 s joined). Both tools busy-poll \
                    non-blocking calls, so their loops are CPU-bound from the first transfer to the last, and both \
                    exit right after it (for Java the JVM's exit, which writes its perf map, may lengthen the \
                    stretch by a tenth of a second or so, shifting the window by as much). jrdma rstream's warm-up is \
                    left out: after it the client sleeps until the JIT has been idle for 2 s. Per transfer counts \
                    both directions, the client's sends and its receives. Times are the guest's: the CPU is emulated, so they are \
                    many times those of real hardware, for C and Java alike.

                    """);
        } else {
            md.append(test.javaTool() + " reports where its measured run began and ended (`run_monotonic_ns` in its "
                    + "JSON, on CLOCK_MONOTONIC, which perf records with `-k CLOCK_MONOTONIC`): its run is cut out "
                    + "exactly. perftest does not, so its run is found in its client's samples: ");
            md.append(test.pingPong() ? """
                the last stretch in which its busiest thread is on a CPU at least 80% of the time. A ping-pong's \
                client busy-polls in user space until the server's answer arrives, so its loop is CPU-bound from \
                the first round trip to the last; perftest has no warm-up, and its set-up (the TCP exchange, the \
                connection) spins at most briefly. Times are the guest's: the CPU is emulated, so they are many times \
                those of real hardware, for C and Java alike.

                """ : """
                the last stretch in which its busiest thread is on a CPU at least 20%% of the time, at least 80%% in \
                the kernel and at least 5%% in rxe's own functions (`rxe_*`). On rxe both ends of a %1$s run in the \
                one kernel, and its requester, responder and completer mostly run in the client's post (its doorbell \
                write and the softirqs it raises), so a %1$s loop is kernel-bound; perftest's set-up and clock \
                calibration are not. Times are the guest's: the CPU is emulated, so they are many times those of real \
                hardware, for C and Java alike.

                """.formatted(test.verb));
        }
        md.append("| Setting | Value |\n|---|---|\n");
        for (String key : List.of("host_cpu", "guest", "kernel", "device", "jdk", "perftest", "librdmacm", "jrdma", "java_command",
                "c_command")) {
            if (env.containsKey(key)) {
                md.append("| ").append(key).append(" | ").append(env.get(key)).append(" |\n");
            }
        }
        md.append("\n## Runs\n\nShares are of the client's samples in its measured run, all its threads.\n\n");
        md.append("| Run | ").append(test.resultColumn).append(" | Measured s | Client CPU µs per ")
                .append(test.operation).append(" |");
        for (Kind k : Kind.values()) {
            md.append(' ').append(k.label()).append(" |");
        }
        md.append(" Client's other threads, ms | Server, ms |\n|---|");
        md.append("---:|".repeat(3 + Kind.values().length + 2)).append('\n');
        for (RunProfile r : runs) {
            Map<Kind, Integer> kinds = r.byKind();
            md.append(String.format(Locale.ROOT, "| %s | %.2f | %.1f | %.1f |", r.name(), test.result(r),
                    r.to() - r.from(), r.cpuMicrosPerOperation()));
            for (Kind k : Kind.values()) {
                md.append(' ').append(percent(kinds.get(k), r.client().size())).append(" |");
            }
            md.append(String.format(Locale.ROOT, " %.0f | %.0f |%n", r.millis(r.client().size() - r.mainThread()),
                    r.millis(r.server())));
        }
        md.append("\n## Reading\n\n");
        double cResult = median(c, test::result);
        double javaResult = median(java, test::result);
        md.append(String.format(Locale.ROOT, "- %s: C %.2f %s, Java %.2f %s (Java/C %.2f).%n", test.resultReading,
                cResult, test.unit, javaResult, test.unit, javaResult / cResult));
        md.append(String.format(Locale.ROOT, "- Client CPU per %s (median): C %.1f µs, Java %.1f µs.%n",
                test.operation, median(c, RunProfile::cpuMicrosPerOperation),
                median(java, RunProfile::cpuMicrosPerOperation)));
        md.append(String.format(Locale.ROOT, "- In the kernel: C %s, Java %s of the client's samples. The tool's "
                        + "own code and its runtime (%s, libc and the rest for C; JIT code, the JVM and "
                        + "the rest for Java): C %s, Java %s.%n",
                share(c, List.of(Kind.KERNEL)), share(java, List.of(Kind.KERNEL)), test.cTool(),
                share(c, List.of(Kind.TOOL, Kind.JVM, Kind.OTHER)), share(java, List.of(Kind.TOOL, Kind.JVM,
                        Kind.OTHER))));
        if (test.rstream()) {
            md.append(String.format(Locale.ROOT, "- Client CPU per transfer in librdmacm's rsockets (median): C %.1f µs, "
                            + "Java %.1f µs; in the kernel: C %.1f µs, Java %.1f µs; in the tool's own code and its "
                            + "runtime (JIT code, the JVM, libc and the rest): C %.1f µs, Java %.1f µs.%n",
                    median(c, r -> r.microsPerOperation(List.of(Kind.RDMACM))),
                    median(java, r -> r.microsPerOperation(List.of(Kind.RDMACM))),
                    median(c, r -> r.microsPerOperation(List.of(Kind.KERNEL))),
                    median(java, r -> r.microsPerOperation(List.of(Kind.KERNEL))),
                    median(c, r -> r.microsPerOperation(List.of(Kind.TOOL, Kind.JVM, Kind.OTHER))),
                    median(java, r -> r.microsPerOperation(List.of(Kind.TOOL, Kind.JVM, Kind.OTHER)))));
        }
        md.append("\n## Kernel functions\n\nShare of the client's samples in all measured runs of each side.\n\n");
        symbols(md, c, java, List.of(Kind.KERNEL));
        md.append("\n## User-space functions\n\nThe tools, their runtimes and the verbs libraries, same shares.\n\n");
        symbols(md, c, java, List.of(Kind.TOOL, Kind.JVM, Kind.VERBS, Kind.PROVIDER, Kind.OTHER, Kind.RDMACM));
        if (test.rstream()) {
            md.append(String.format(Locale.ROOT, "%n## The largest differences per %s%n%nClient CPU µs per %s in "
                    + "each function, kernel and user space, over all measured runs of each side; the functions "
                    + "whose time differs most between C and Java.%n%n", test.operation, test.operation));
            differences(md, c, java, test.operation);
        }
        return md.toString();
    }

    private static void differences(StringBuilder md, List<RunProfile> c, List<RunProfile> java, String operation) {
        List<Kind> all = List.of(Kind.values());
        Map<String, Double> cs = perOperation(c, all);
        Map<String, Double> js = perOperation(java, all);
        md.append("| Function | Kind | C µs per ").append(operation).append(" | Java µs per ").append(operation)
                .append(" | Java − C |\n|---|---|---:|---:|---:|\n");
        Map<String, Kind> kinds = new HashMap<>();
        Stream.concat(c.stream(), java.stream()).flatMap(r -> r.client().stream())
                .forEach(sample -> kinds.putIfAbsent(sample.symbol(), sample.kind()));
        Stream.concat(cs.keySet().stream(), js.keySet().stream()).distinct()
                .sorted(Comparator.comparingDouble((String s) -> -Math.abs(js.getOrDefault(s, 0.0)
                        - cs.getOrDefault(s, 0.0))).thenComparing(Comparator.naturalOrder()))
                .limit(2 * TOP)
                .forEach(s -> md.append(String.format(Locale.ROOT, "| `%s` | %s | %.2f | %.2f | %+.2f |%n",
                        s.replace("|", "\\|"), kinds.get(s).label(), cs.getOrDefault(s, 0.0),
                        js.getOrDefault(s, 0.0), js.getOrDefault(s, 0.0) - cs.getOrDefault(s, 0.0))));
    }

    /** Client CPU µs per operation in each function of the given kinds, over all {@code runs}. */
    private static Map<String, Double> perOperation(List<RunProfile> runs, List<Kind> kinds) {
        long operations = runs.stream().mapToLong(RunProfile::operations).sum();
        Map<String, Double> m = new HashMap<>();
        RunProfile.merge(runs, r -> r.bySymbol(kinds)).forEach((symbol, samples) -> m.put(symbol,
                samples * 1e6 / runs.getFirst().frequency() / Math.max(operations, 1)));
        return m;
    }

    private static void symbols(StringBuilder md, List<RunProfile> c, List<RunProfile> java, List<Kind> kinds) {
        Map<String, Integer> cs = RunProfile.merge(c, r -> r.bySymbol(kinds));
        Map<String, Integer> js = RunProfile.merge(java, r -> r.bySymbol(kinds));
        int cn = c.stream().mapToInt(r -> r.client().size()).sum();
        int jn = java.stream().mapToInt(r -> r.client().size()).sum();
        md.append("| Function | C | Java |\n|---|---:|---:|\n");
        Comparator<String> largestShare = Comparator.comparingDouble(
                s -> -Math.max(cs.getOrDefault(s, 0) / (double) Math.max(cn, 1),
                        js.getOrDefault(s, 0) / (double) Math.max(jn, 1)));
        Stream.concat(cs.keySet().stream(), js.keySet().stream()).distinct()
                .sorted(largestShare.thenComparing(Comparator.naturalOrder()))
                .limit(TOP)
                .forEach(s -> md.append("| `").append(s.replace("|", "\\|")).append("` | ")
                        .append(percent(cs.getOrDefault(s, 0), cn)).append(" | ")
                        .append(percent(js.getOrDefault(s, 0), jn)).append(" |\n"));
    }

    private static String share(List<RunProfile> runs, List<Kind> kinds) {
        int all = runs.stream().mapToInt(r -> r.client().size()).sum();
        int some = runs.stream().map(RunProfile::byKind).mapToInt(m -> kinds.stream().mapToInt(m::get).sum()).sum();
        return percent(some, all);
    }

    private static double median(List<RunProfile> runs, ToDoubleFunction<RunProfile> f) {
        return Comparison.median(runs.stream().mapToDouble(f).toArray());
    }

    private static String percent(int part, int whole) {
        return whole == 0 ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
    }
}
