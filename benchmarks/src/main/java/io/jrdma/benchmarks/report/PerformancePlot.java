package io.jrdma.benchmarks.report;

import io.jrdma.benchmarks.report.Comparison.Row;
import io.jrdma.benchmarks.report.Comparison.Side;

import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The benchmark's picture: latency by message size on the left, bandwidth by message size on the right, one colour
 * per test, C solid and Java dashed, sizes on a log2 axis. Drawn with java.awt (headless) and written as PNG.
 *
 * <pre>{@code
 * PerformancePlot.write(comparisons, Path.of("docs/performance.png"));
 * }</pre>
 */
public final class PerformancePlot {
    private static final int PANEL_W = 560;
    private static final int H = 440;

    private PerformancePlot() {
    }

    /** Draws the latency tests of {@code tests} on the left and the bandwidth tests on the right. */
    public static BufferedImage draw(List<Comparison> tests) {
        return LinePanel.picture(2 * PANEL_W, H, g -> {
            panel(g, 0, "Typical latency (µs)", tests.stream().filter(Comparison::latency).toList(),
                    Measurement::typicalMicros, false);
            panel(g, PANEL_W, "Average bandwidth (MB/s, log scale)",
                    tests.stream().filter(c -> !c.latency()).toList(), Measurement::mbPerSecond, true);
        });
    }

    /** Draws and writes the PNG. */
    public static void write(List<Comparison> tests, Path png) throws IOException {
        LinePanel.write(draw(tests), png);
    }

    private static void panel(Graphics2D g, int x0, String title, List<Comparison> tests,
                              ToDoubleFunction<Measurement> metric, boolean logY) {
        List<LinePanel.Series> series = new ArrayList<>();
        for (int i = 0; i < tests.size(); i++) {
            Comparison c = tests.get(i);
            for (Side s : Side.values()) {
                List<Row> rows = c.rows();
                series.add(new LinePanel.Series(c.test() + ", " + s.label(),
                        LinePanel.COLORS[i % LinePanel.COLORS.length], s != Side.C,
                        rows.stream().mapToDouble(Row::size).toArray(),
                        rows.stream().mapToDouble(r -> r.median(s, metric)).toArray()));
            }
        }
        new LinePanel(PANEL_W, H, "message size").draw(g, x0, title, series, logY);
    }
}
