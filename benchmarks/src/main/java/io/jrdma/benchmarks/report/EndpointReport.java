package io.jrdma.benchmarks.report;

import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Turns the results directory of {@code scripts/bench-endpoint} into {@code endpoint-performance.md} and
 * {@code endpoint-performance.png}. The directory holds {@code env.txt} ({@code key=value} lines) and per round
 * {@code round-R/IMPL_KIND_SIZE.txt} (perftest's output, one size a run) or {@code round-R/IMPL_KIND_all.json}
 * (the Java sides' JSON, every size in one run), where IMPL is {@code c}, {@code perf}, {@code endpoint} or
 * {@code jucx} and KIND {@code lat} or {@code rate}. UCX's info-level log in the JUCX runs' outputs (the client's
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
        C("C perftest"), PERF("jrdma perf"), ENDPOINT("jrdma endpoint"), JUCX("JUCX");

        final String label;

        Impl(String label) {
            this.label = label;
        }
    }

    private static final Pattern RUN = Pattern.compile("(c|perf|endpoint|jucx)_(lat|rate)_(\\d+|all)\\.(txt|json)");
    private static final Pattern UCX_INFO = Pattern.compile("UCX\\s+INFO\\s+(.*)");

    /** Per kind ({@code lat}, {@code rate}), size and implementation, the measurements of every round. */
    private final Map<String, Map<Integer, Map<Impl, List<Measurement>>>> runs = new TreeMap<>();
    private final List<String> leftOut = new ArrayList<>();
    private final Set<String> ucxLog = new LinkedHashSet<>();

    private EndpointReport() {
    }

    /**
     * Writes the page and the picture.
     *
     * @param args {@code RESULTS_DIR DOCS_DIR}
     * @throws IOException when a file cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        BenchReport.Directories dirs = BenchReport.Directories.of(args, "EndpointReport");
        Map<String, String> env = BenchReport.environment(Files.readString(dirs.results().resolve("env.txt")));
        EndpointReport report = read(dirs.results());
        Files.createDirectories(dirs.docs());
        Files.writeString(dirs.docs().resolve("endpoint-performance.md"), report.markdown(env));
        LinePanel.write(report.draw(), dirs.docs().resolve("endpoint-performance.png"));
        System.out.println("bench-endpoint: wrote " + dirs.docs().resolve("endpoint-performance.md") + " and .png");
    }

    /** Reads every run under {@code results}; a run without a result row is left out and named on the page. */
    static EndpointReport read(Path results) throws IOException {
        EndpointReport report = new EndpointReport();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(results)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path f : files) {
            String name = f.getFileName().toString();
            // UCX logs to stdout: the client's lines are in its result file, among its JSON.
            if (name.startsWith("jucx_")) {
                report.ucxLog(Files.readString(f));
            }
            Matcher m = RUN.matcher(name);
            if (!m.matches()) {
                continue;
            }
            Impl impl = Impl.valueOf(m.group(1).toUpperCase(Locale.ROOT));
            String text = Files.readString(f);
            try {
                List<Measurement> rows = impl == Impl.C ? Measurement.perftest(text) : Measurement.jrdmaJson(text);
                for (Measurement r : rows) {
                    report.runs.computeIfAbsent(m.group(2), k -> new TreeMap<>())
                            .computeIfAbsent(r.size(), k -> new TreeMap<>())
                            .computeIfAbsent(impl, k -> new ArrayList<>()).add(r);
                }
            } catch (IllegalArgumentException e) {
                report.leftOut.add(results.relativize(f).toString());
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
        List<Measurement> rows = runs.getOrDefault(kind, Map.of()).getOrDefault(size, Map.of())
                .getOrDefault(impl, List.of());
        return rows.isEmpty() ? Double.NaN : Comparison.median(rows.stream().mapToDouble(metric).toArray());
    }

    /** The page. */
    String markdown(Map<String, String> env) {
        StringBuilder md = new StringBuilder();
        md.append("# jrdma-endpoint against the verbs and JUCX on Soft-RoCE\n\n")
                .append("Generated by `scripts/bench-endpoint`. Four implementations of the same two tests on the "
                        + "same device in one VM boot, taking turns, over several rounds; each cell is the median "
                        + "over the rounds:\n\n")
                .append("- **C perftest**: `ib_send_lat` and `ib_send_bw` (the C floor);\n")
                .append("- **jrdma perf**: `jrdma perf send-lat` and `send-bw` (the verbs from Java, the Java "
                        + "floor);\n")
                .append("- **jrdma endpoint**: `jrdma endpoint-perf lat` and `rate`: jrdma-endpoint's "
                        + "allocation-free path, `Endpoint.trySend` with an `OperationHandler`, messages in "
                        + "`EndpointHandler.onMessage`, each side driving its worker by busy-polling `progress()` on "
                        + "its own thread; the message rate keeps up to the depth in flight and resumes in "
                        + "`onWritable`;\n")
                .append("- **JUCX**: `org.openucx:jucx` (UCX's Java binding) on the distribution's UCX, through "
                        + "tagged messages (`sendTaggedNonBlocking` / `recvTaggedNonBlocking`) with "
                        + "`worker.progress()` busy-polled, endpoints connected through a `UcpListener`, UCX "
                        + "restricted to its `rc_verbs` transport on rxe0 (UCX log below). Its message rate ends "
                        + "with the server's acknowledgement of the last message, as a UCX send completes when its "
                        + "buffer is free, not when the peer has it.\n\n")
                .append("Latency is one way, half the round trip of a ping-pong, in µs: *least* is the fastest "
                        + "round trip, *typical* the median (perftest's t_min and t_typical). The message rate is "
                        + "messages per second from the first send to the last completion, with the same number in "
                        + "flight on every side. The device is `rdma_rxe` in a qemu TCG VM: every instruction is "
                        + "emulated, so the absolute numbers say nothing about RDMA hardware; what the page compares "
                        + "is the four under the same conditions.\n\n");
        md.append("## Setup\n\n| | |\n|---|---|\n");
        env.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v.replace("|", "\\|")).append(" |\n"));
        if (!leftOut.isEmpty()) {
            md.append("| left out (no result) | ").append(String.join(", ", leftOut)).append(" |\n");
        }
        latencyTable(md, "Least latency", Measurement::minMicros);
        latencyTable(md, "Typical latency", Measurement::typicalMicros);
        rateTable(md);
        md.append("\n![Least latency and message rate by size](endpoint-performance.png)\n");
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

    private void latencyTable(StringBuilder md, String title, ToDoubleFunction<Measurement> metric) {
        md.append("\n## ").append(title).append(", µs one way\n\n| Size");
        for (Impl i : Impl.values()) {
            md.append(" | ").append(i.label);
        }
        md.append(" | endpoint / C | endpoint / perf | JUCX / C | JUCX / perf |\n|---:")
                .append("|---:".repeat(Impl.values().length + 4)).append("|\n");
        rows(md, "lat", metric, "%.2f");
    }

    private void rateTable(StringBuilder md) {
        md.append("\n## Message rate, millions of messages a second\n\n| Size");
        for (Impl i : Impl.values()) {
            md.append(" | ").append(i.label);
        }
        md.append(" | endpoint / C | endpoint / perf | JUCX / C | JUCX / perf |\n|---:")
                .append("|---:".repeat(Impl.values().length + 4)).append("|\n");
        rows(md, "rate", Measurement::mpps, "%.4f");
    }

    private void rows(StringBuilder md, String kind, ToDoubleFunction<Measurement> metric, String format) {
        for (int size : runs.getOrDefault(kind, Map.of()).keySet()) {
            md.append("| ").append(PerformanceReport.size(size));
            for (Impl i : Impl.values()) {
                md.append(" | ").append(cell(median(kind, size, i, metric), format));
            }
            for (Impl i : List.of(Impl.ENDPOINT, Impl.JUCX)) {
                for (Impl floor : List.of(Impl.C, Impl.PERF)) {
                    md.append(" | ").append(cell(median(kind, size, i, metric) / median(kind, size, floor, metric),
                            "%.2f"));
                }
            }
            md.append(" |\n");
        }
    }

    private static String cell(double v, String format) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, format, v);
    }

    /** Least latency by size on the left, message rate by size on the right, one colour per implementation. */
    BufferedImage draw() {
        int w = 560;
        int h = 440;
        return LinePanel.picture(2 * w, h, g -> {
            panel(g, new LinePanel(w, h, "message size"), 0, "Least latency, one way (µs)", "lat",
                    Measurement::minMicros, false);
            panel(g, new LinePanel(w, h, "message size"), w, "Message rate (Mpps, log scale)", "rate",
                    Measurement::mpps, true);
        });
    }

    private void panel(Graphics2D g, LinePanel panel, int x0, String title, String kind,
                       ToDoubleFunction<Measurement> metric, boolean logY) {
        List<LinePanel.Series> series = new ArrayList<>();
        List<Integer> sizes = List.copyOf(runs.getOrDefault(kind, Map.of()).keySet());
        for (Impl i : Impl.values()) {
            List<Integer> measured = sizes.stream().filter(s -> !Double.isNaN(median(kind, s, i, metric))).toList();
            series.add(new LinePanel.Series(i.label, LinePanel.COLORS[i.ordinal() % LinePanel.COLORS.length],
                    i == Impl.PERF || i == Impl.JUCX, measured.stream().mapToDouble(Integer::doubleValue).toArray(),
                    measured.stream().mapToDouble(s -> median(kind, s, i, metric)).toArray()));
        }
        panel.draw(g, x0, title, series, logY);
    }
}
