package io.jrdma.benchmarks.report;

import java.awt.Graphics2D;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The measurements of a bench script that runs several implementations of the same tests, taking turns over rounds
 * ({@code round-R/IMPL_KIND_SIZE.txt} or {@code round-R/IMPL_KIND_all.json}): per kind of test, size and
 * implementation, every round's row, and the tables and plot panels of their medians.
 *
 * @param <I> the implementations, in the order of the tables
 */
final class SideBySide<I extends Enum<I>> {
    /** How one result file of an implementation and kind reads: its rows, or an IllegalArgumentException. */
    interface Parser<I> {
        List<Measurement> parse(I impl, String kind, int size, String text);
    }

    private final Class<I> impls;
    private final Function<I, String> label;
    private final Map<String, Map<Integer, Map<I, List<Measurement>>>> runs = new TreeMap<>();
    private final List<String> leftOut = new ArrayList<>();

    private SideBySide(Class<I> impls, Function<I, String> label) {
        this.impls = impls;
        this.label = label;
    }

    /**
     * Reads every result file under {@code results} whose name {@code files} matches (groups: the implementation's
     * key, the kind, the size or {@code all}); a file without a result row is left out and named on the page.
     *
     * @param key the implementation whose file names carry {@code key}
     */
    static <I extends Enum<I>> SideBySide<I> read(Path results, Class<I> impls, Function<I, String> label,
                                                  Pattern files, Function<String, I> key, Parser<I> parser)
            throws IOException {
        SideBySide<I> side = new SideBySide<>(impls, label);
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(results)) {
            paths = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path f : paths) {
            Matcher m = files.matcher(f.getFileName().toString());
            if (!m.matches()) {
                continue;
            }
            I impl = key.apply(m.group(1));
            String kind = m.group(2);
            int size = m.group(3).equals("all") ? 0 : Integer.parseInt(m.group(3));
            try {
                for (Measurement r : parser.parse(impl, kind, size, Files.readString(f))) {
                    side.runs.computeIfAbsent(kind, k -> new TreeMap<>())
                            .computeIfAbsent(r.size(), k -> new EnumMap<>(impls))
                            .computeIfAbsent(impl, k -> new ArrayList<>()).add(r);
                }
            } catch (IllegalArgumentException e) {
                side.leftOut.add(results.relativize(f).toString());
            }
        }
        return side;
    }

    /** The files that had no result, relative to the results directory. */
    List<String> leftOut() {
        return leftOut;
    }

    /** Whether any implementation ran {@code kind}: a results directory of an older script lacks some. */
    boolean measured(String kind) {
        return runs.containsKey(kind);
    }

    /** The median over rounds of {@code metric}, NaN where there is no run. */
    double median(String kind, int size, I impl, ToDoubleFunction<Measurement> metric) {
        List<Measurement> rows = runs.getOrDefault(kind, Map.of()).getOrDefault(size, Map.of())
                .getOrDefault(impl, List.of());
        return rows.isEmpty() ? Double.NaN : Comparison.median(rows.stream().mapToDouble(metric).toArray());
    }

    /**
     * A table of {@code kind}: a row per size, a column per one of {@code columns}, then one per ratio (each pair
     * {@code [numerator, denominator]}, headed by {@code ratioHeads}). None if no run measured {@code kind}: a run of
     * some of a script's tests has no page section for the others.
     */
    void table(StringBuilder md, String title, String kind, ToDoubleFunction<Measurement> metric, String format,
               List<I> columns, List<List<I>> ratios, List<String> ratioHeads) {
        if (runs.getOrDefault(kind, Map.of()).isEmpty()) {
            return;
        }
        md.append("\n## ").append(title).append("\n\n| Size");
        columns.forEach(i -> md.append(" | ").append(label.apply(i)));
        ratioHeads.forEach(h -> md.append(" | ").append(h));
        md.append(" |\n|---:").append("|---:".repeat(columns.size() + ratios.size())).append("|\n");
        for (int size : runs.getOrDefault(kind, Map.of()).keySet()) {
            md.append("| ").append(PerformanceReport.size(size));
            for (I i : columns) {
                md.append(" | ").append(cell(median(kind, size, i, metric), format));
            }
            for (List<I> r : ratios) {
                md.append(" | ").append(cell(median(kind, size, r.get(0), metric)
                        / median(kind, size, r.get(1), metric), "%.2f"));
            }
            md.append(" |\n");
        }
    }

    private static String cell(double v, String format) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, format, v);
    }

    /** A panel of {@code kind} by size, one line per implementation measured, those in {@code dashed} dashed. */
    void panel(Graphics2D g, LinePanel panel, int x0, String title, String kind, ToDoubleFunction<Measurement> metric,
               boolean logY, List<I> dashed) {
        List<LinePanel.Series> series = new ArrayList<>();
        List<Integer> sizes = List.copyOf(runs.getOrDefault(kind, Map.of()).keySet());
        for (I i : impls.getEnumConstants()) {
            List<Integer> measured = sizes.stream().filter(s -> !Double.isNaN(median(kind, s, i, metric))).toList();
            if (!measured.isEmpty()) {
                series.add(new LinePanel.Series(label.apply(i),
                        LinePanel.COLORS[i.ordinal() % LinePanel.COLORS.length], dashed.contains(i),
                        measured.stream().mapToDouble(Integer::doubleValue).toArray(),
                        measured.stream().mapToDouble(s -> median(kind, s, i, metric)).toArray()));
            }
        }
        panel.draw(g, x0, title, series, logY);
    }
}
