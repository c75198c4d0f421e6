package io.jrdma.benchmarks.report;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Turns the results directory of {@code scripts/bench-endpoint} into {@code endpoint-performance.md} and
 * {@code endpoint-performance.png}. The directory holds {@code env.txt} ({@code key=value} lines) and per round
 * {@code round-R/IMPL_KIND_SIZE.txt} (perftest's output, one size a run) or {@code round-R/IMPL_KIND_all.json}
 * (the Java sides' JSON, every size in one run), where IMPL is {@code c}, {@code ucx} (ucx_perftest's output, one
 * size a run), {@code perf}, {@code endpoint}, {@code future} or {@code jucx} and KIND {@code lat}, {@code rate} (128
 * in flight), {@code rateN} (N in flight) or {@code bw}. UCX's info-level log in the JUCX runs' outputs (the client's
 * result file and the server's {@code .server}) says which transports UCX chose; the page quotes it.
 *
 * <pre>{@code
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/jmh-classpath.txt)" \
 *     io.jrdma.benchmarks.report.EndpointReport target/bench-endpoint docs
 * }</pre>
 */
public final class EndpointReport {
    /** The implementations, in the order of the tables: the two floors first. */
    enum Impl {
        C("C perftest"), UCX("ucx_perftest"), PERF("jrdma perf"), ENDPOINT("jrdma endpoint"),
        FUTURE("jrdma endpoint, futures"), CONNECTION("RdmaConnection"), JUCX("JUCX");

        final String label;

        Impl(String label) {
            this.label = label;
        }
    }

    private static final Pattern RUN = Pattern.compile(
            "(c|ucx|perf|endpoint|future|connection|jucx)_(lat|rate\\d*|bw)_(\\d+|all)\\.(txt|json)");
    private static final Pattern UCX_INFO = Pattern.compile("UCX\\s+INFO\\s+(.*)");
    private static final List<List<Impl>> RATIOS = List.of(List.of(Impl.ENDPOINT, Impl.C),
            List.of(Impl.ENDPOINT, Impl.PERF), List.of(Impl.FUTURE, Impl.ENDPOINT), List.of(Impl.JUCX, Impl.C),
            List.of(Impl.JUCX, Impl.PERF), List.of(Impl.ENDPOINT, Impl.JUCX));
    private static final List<String> RATIO_HEADS = List.of("endpoint / C", "endpoint / perf",
            "futures / endpoint", "JUCX / C", "JUCX / perf", "endpoint / JUCX");
    /** The message rates measured at fewer in flight than {@code rate}'s 128: their kinds and how many. */
    private static final List<Integer> SWEEP = List.of(1, 8, 16);

    private final SideBySide<Impl> runs;
    private final Set<String> ucxLog = new LinkedHashSet<>();

    private EndpointReport(SideBySide<Impl> runs) {
        this.runs = runs;
    }

    /**
     * Writes the page and the picture.
     *
     * @param args {@code RESULTS_DIR DOCS_DIR}
     * @throws IOException when a file cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        BenchReport.Directories dirs = BenchReport.Directories.of(args, "EndpointReport");
        EndpointReport report = read(dirs.results());
        dirs.writePage("bench-endpoint", "endpoint-performance", report.markdown(dirs.environment()), report.draw());
    }

    /** Reads every run under {@code results}; a run without a result row is left out and named on the page. */
    static EndpointReport read(Path results) throws IOException {
        EndpointReport report = new EndpointReport(SideBySide.read(results, Impl.class, i -> i.label, RUN,
                key -> Impl.valueOf(key.toUpperCase(Locale.ROOT)),
                (impl, kind, size, text) -> switch (impl) {
                    case C -> Measurement.perftest(text);
                    case UCX -> List.of(Measurement.ucxPerftest(text, size, kind.equals("lat")));
                    default -> Measurement.jrdmaJson(text);
                }));
        // UCX logs to stdout: the client's lines are in its result file, among its JSON; the server's in .server.
        try (Stream<Path> walk = Files.walk(results)) {
            for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
                String name = f.getFileName().toString();
                if (name.startsWith("jucx_") || name.startsWith("ucx_")) {
                    report.ucxLog(Files.readString(f));
                }
            }
        }
        return report;
    }

    /** UCX's info lines without their time stamps and process ids: the same line from every run once. */
    private void ucxLog(String text) {
        for (String line : text.split("\\R")) {
            Matcher m = UCX_INFO.matcher(line);
            if (m.find()) {
                ucxLog.add(m.group(1).strip());
            }
        }
    }

    /** The median over rounds of {@code metric}, NaN where there is no run. */
    double median(String kind, int size, Impl impl, ToDoubleFunction<Measurement> metric) {
        return runs.median(kind, size, impl, metric);
    }

    /** The page. */
    String markdown(Map<String, String> env) {
        StringBuilder md = new StringBuilder();
        md.append("# jrdma-endpoint against the verbs and JUCX on Soft-RoCE\n\n")
                .append("Generated by `scripts/bench-endpoint`. Up to seven implementations of the same tests on the "
                        + "same device in one VM boot, taking turns, over several rounds (the message rate at 1 in "
                        + "flight and bandwidth: the C floors and the handler flavour); each cell is the median over "
                        + "the rounds:\n\n")
                .append("- **C perftest**: `ib_send_lat`, `ib_send_bw` and, for bandwidth, `ib_write_bw` (the C "
                        + "floor);\n")
                .append("- **ucx_perftest**: UCX's own C tool, `tag_lat` and `tag_bw` (UCX's floor, the C under "
                        + "JUCX), on `rc_verbs` with `ud_verbs` for the wire-up (it connects from exchanged worker "
                        + "addresses, not through the connection manager as JUCX's listener does);\n")
                .append("- **jrdma perf**: `jrdma perf send-lat` and `send-bw` (the verbs from Java, the Java "
                        + "floor);\n")
                .append("- **jrdma endpoint**: `jrdma endpoint-perf lat` and `rate`: jrdma-endpoint's "
                        + "allocation-free path, `Endpoint.trySend` with an `OperationHandler`, messages in "
                        + "`EndpointHandler.onMessage`, each side driving its worker by busy-polling `progress()` on "
                        + "its own thread; the message rate keeps up to the depth in flight and resumes in "
                        + "`onWritable`;\n")
                .append("- **jrdma endpoint, futures**: the same with `--api future`: `Endpoint.send`, a "
                        + "`CompletableFuture` per message (a ping-pong waits for its send's future as well as the "
                        + "echo; the rate counts the futures' completions);\n")
                .append("- **RdmaConnection**: the ping-pong through `RdmaConnection`'s blocking `send` and "
                        + "`receive` on both sides (`--api connection`), the convenience a newcomer reaches for;\n")
                .append("- **JUCX**: `org.openucx:jucx` (UCX's Java binding) on the distribution's UCX, through "
                        + "tagged messages (`sendTaggedNonBlocking` / `recvTaggedNonBlocking`) with "
                        + "`worker.progress()` busy-polled, endpoints connected through a `UcpListener`, UCX "
                        + "restricted to its `rc_verbs` transport on rxe0 (UCX log below). Its message rate ends "
                        + "with the server's acknowledgement of the last message, as a UCX send completes when its "
                        + "buffer is free, not when the peer has it.\n\n")
                .append("Latency is one way, half the round trip of a ping-pong, in µs: *least* is the fastest "
                        + "round trip, *typical* the median (perftest's t_min and t_typical; ucx_perftest reports "
                        + "only the median). The message rate is messages per second from the first send to the "
                        + "last completion, with the same number in flight on every side; bandwidth is the same "
                        + "test with large messages, in MB/s (2^20 bytes). The device is `rdma_rxe` in a qemu TCG "
                        + "VM: every instruction is emulated, so the absolute numbers say nothing about RDMA "
                        + "hardware; what the page compares is the implementations under the same conditions. Targets: "
                        + "endpoint least latency at most 1.10 of jrdma perf's and below JUCX's; 64 B message "
                        + "rate at least 0.90 of C perftest's at the same depth and above JUCX's; 1 MiB bandwidth at "
                        + "least 0.95 of `ib_write_bw`'s.\n\n");
        md.append("## Setup\n\n| | |\n|---|---|\n");
        env.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v.replace("|", "\\|")).append(" |\n"));
        if (!runs.leftOut().isEmpty()) {
            md.append("| left out (no result) | ").append(String.join(", ", runs.leftOut())).append(" |\n");
        }
        List<Impl> all = List.of(Impl.values());
        runs.table(md, "Least latency, µs one way", "lat", Measurement::minMicros, "%.2f", all, RATIOS, RATIO_HEADS);
        runs.table(md, "Typical latency, µs one way", "lat", Measurement::typicalMicros, "%.2f", all, RATIOS,
                RATIO_HEADS);
        runs.table(md, "Message rate, millions of messages a second (128 in flight)", "rate", Measurement::mpps,
                "%.4f", all, RATIOS, RATIO_HEADS);
        for (int depth : SWEEP.stream().filter(d -> runs.measured("rate" + d)).toList()) {
            runs.table(md, "Message rate, millions of messages a second (" + depth + " in flight)", "rate" + depth,
                    Measurement::mpps, "%.4f", all, RATIOS, RATIO_HEADS);
        }
        runs.table(md, "Bandwidth, MB/s (16 in flight; C perftest is ib_write_bw)", "bw",
                Measurement::mbPerSecond, "%.1f", all, RATIOS, RATIO_HEADS);
        md.append("\n![Least latency and message rate by size](endpoint-performance.png)\n");
        md.append("\nWhere a 64 B message's time goes, against perftest: in a ping-pong against `ib_send_lat`, "
                + "[profile-endpoint-lat.md](profile-endpoint-lat.md) (`scripts/profile --test endpoint-lat`), and "
                + "at 128 in flight against `ib_send_bw`, [profile-endpoint-rate.md](profile-endpoint-rate.md) "
                + "(`scripts/profile --test endpoint-rate`), and at 1 in flight, "
                + "[profile-endpoint-rate1.md](profile-endpoint-rate1.md) (`--depth 1`); all read in "
                + "[benchmarks.md](benchmarks.md#jrdma-endpoint-against-the-verbs-and-jucx-soft-roce).\n");
        md.append("\n## What UCX chose\n\n");
        if (ucxLog.isEmpty()) {
            md.append("No UCX log in the results.\n");
        } else {
            md.append("UCX's info-level log of the JUCX runs (both sides, every round, each line once):\n\n```\n");
            ucxLog.forEach(l -> md.append(l).append('\n'));
            md.append("```\n");
        }
        return md.toString();
    }

    /** Least latency by size on the left, message rate by size on the right, one colour per implementation. */
    BufferedImage draw() {
        int w = 560;
        int h = 440;
        return LinePanel.picture(2 * w, h, g -> {
            List<Impl> dashed = List.of(Impl.UCX, Impl.PERF, Impl.JUCX);
            runs.panel(g, new LinePanel(w, h, "message size"), 0, "Least latency, one way (µs)", "lat",
                    Measurement::minMicros, false, dashed);
            runs.panel(g, new LinePanel(w, h, "message size"), w, "Message rate (Mpps, log scale)", "rate",
                    Measurement::mpps, true, dashed);
        });
    }
}
