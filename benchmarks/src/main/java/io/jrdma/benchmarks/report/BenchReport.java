package io.jrdma.benchmarks.report;

import io.jrdma.benchmarks.report.Comparison.Side;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Turns the results directory of {@code scripts/bench} into {@code performance.md} and {@code performance.png}.
 * The directory holds {@code env.txt} ({@code key=value} lines about the run) and one file per run:
 * {@code round-R/c_TEST_SIZE.txt} (perftest's output) or {@code round-R/java_TEST_SIZE.json} ({@code jrdma perf
 * --json}; {@code java_TEST_all.json} when one run took every size), and {@code retries.txt} (the runs with transport retries so far, one a line; none where it is absent).
 * A run that left no result (it failed or timed out) is left out and counted on the page.
 *
 * <pre>{@code
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/jmh-classpath.txt)" \
 *     io.jrdma.benchmarks.report.BenchReport target/bench docs
 * }</pre>
 */
public final class BenchReport {
    /** The order of the page. */
    static final List<String> TESTS = List.of("write-lat", "send-lat", "read-lat", "write-bw", "send-bw");
    private static final Pattern RUN = Pattern.compile("(c|java)_([a-z]+-(?:lat|bw))_(\\d+|all)\\.(txt|json)");

    private BenchReport() {
    }

    public static void main(String[] args) throws IOException {
        Directories dirs = Directories.of(args, "BenchReport");
        Path results = dirs.results();
        Path docs = dirs.docs();
        Map<String, String> env = environment(Files.readString(results.resolve("env.txt")));
        Path retries = results.resolve("retries.txt");
        List<String> retried = Files.exists(retries) ? Files.readAllLines(retries) : List.of();
        env.put("retries", retried.isEmpty() ? "none" : String.join("; ", retried));
        List<String> leftOut = new ArrayList<>();
        List<Comparison> tests = collect(results, leftOut);
        if (!leftOut.isEmpty()) {
            env.put("left_out", leftOut.size() + ": " + String.join(", ", leftOut));
            System.err.println("bench: left out (no result): " + leftOut);
        }
        Files.createDirectories(docs);
        Files.writeString(docs.resolve("performance.md"), new PerformanceReport(env, tests).markdown());
        PerformancePlot.write(tests, docs.resolve("performance.png"));
        System.out.println("bench: wrote " + docs.resolve("performance.md") + " and " + docs.resolve("performance.png"));
    }

    /** A report generator's command line: where the results are and where the page goes. */
    record Directories(Path results, Path docs) {
        /** {@code RESULTS_DIR DOCS_DIR}, or the usage of {@code generator} and exit status 2. */
        static Directories of(String[] args, String generator) {
            if (args.length != 2) {
                System.err.println("usage: " + generator + " RESULTS_DIR DOCS_DIR");
                System.exit(2);
            }
            return new Directories(Path.of(args[0]), Path.of(args[1]));
        }

        /** The results' {@code env.txt}. */
        Map<String, String> environment() throws IOException {
            return BenchReport.environment(Files.readString(results.resolve("env.txt")));
        }

        /** Writes the page {@code NAME.md} and its picture {@code NAME.png} into the docs directory, and says so. */
        void writePage(String script, String name, String markdown, BufferedImage picture) throws IOException {
            Files.createDirectories(docs);
            Files.writeString(docs.resolve(name + ".md"), markdown);
            LinePanel.write(picture, docs.resolve(name + ".png"));
            System.out.println(script + ": wrote " + docs.resolve(name + ".md") + " and .png");
        }
    }

    /** {@code key=value} lines; blank lines and lines without '=' are skipped. */
    static Map<String, String> environment(String text) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String line : text.split("\\R")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                env.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
            }
        }
        return env;
    }

    /** Reads every run file under {@code results}; runs without a result row are named in {@code leftOut}. */
    static List<Comparison> collect(Path results, List<String> leftOut) throws IOException {
        Map<String, Comparison> tests = new LinkedHashMap<>();
        TESTS.forEach(t -> tests.put(t, new Comparison(t)));
        List<Path> files;
        try (Stream<Path> walk = Files.walk(results)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path f : files) {
            Matcher m = RUN.matcher(f.getFileName().toString());
            if (!m.matches()) {
                continue;
            }
            Comparison c = tests.computeIfAbsent(m.group(2), Comparison::new);
            Side side = m.group(1).equals("c") ? Side.C : Side.JAVA;
            String text = Files.readString(f);
            try {
                List<Measurement> rows = side == Side.C ? Measurement.perftest(text) : Measurement.jrdmaJson(text);
                rows.forEach(r -> c.add(side, r));
            } catch (IllegalArgumentException e) {
                leftOut.add(results.relativize(f).toString());
            }
        }
        return tests.values().stream().filter(c -> !c.rows().isEmpty()).toList();
    }
}
