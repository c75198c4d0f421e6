package io.jrdma.benchmarks.report;

import io.jrdma.benchmarks.report.NoncontiguousReport.Pair;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The non-contiguous benchmark's picture: a column per mode (write, read, send), block sizes on a log2 axis, a colour
 * per block count. Above, the median time per message (log scale), zero-copy solid and packed dashed; below, packed's
 * fastest message over zero-copy's, which a disturbed run does not inflate as it does the medians.
 *
 * <pre>{@code
 * NoncontiguousPlot.write(NoncontiguousReport.pairs(rows), Path.of("docs/noncontiguous.png"));
 * }</pre>
 */
final class NoncontiguousPlot {
    private static final int PANEL_W = 460;
    private static final int H = 440;

    private NoncontiguousPlot() {
    }

    static BufferedImage draw(List<Pair> pairs) {
        List<String> modes = NoncontiguousReport.MODES;
        return LinePanel.picture(modes.size() * PANEL_W, 2 * H, g -> {
            for (int m = 0; m < modes.size(); m++) {
                String mode = modes.get(m);
                List<Pair> p = pairs.stream().filter(x -> x.zeroCopy().mode().equals(mode)).toList();
                List<Integer> counts = p.stream().map(x -> x.zeroCopy().blocks()).distinct().sorted().toList();
                List<LinePanel.Series> times = new ArrayList<>();
                List<LinePanel.Series> ratios = new ArrayList<>();
                for (int c = 0; c < counts.size(); c++) {
                    int blocks = counts.get(c);
                    List<Pair> line = p.stream().filter(x -> x.zeroCopy().blocks() == blocks).toList();
                    double[] sizes = line.stream().mapToDouble(x -> x.zeroCopy().blockSize()).toArray();
                    Color color = LinePanel.COLORS[c % LinePanel.COLORS.length];
                    for (boolean packed : new boolean[] {false, true}) {
                        times.add(new LinePanel.Series(blocks + " blocks, " + (packed ? "packed" : "zero-copy"),
                                color, packed, sizes, line.stream()
                                .mapToDouble(x -> (packed ? x.packed() : x.zeroCopy()).medianMicros()).toArray()));
                    }
                    ratios.add(new LinePanel.Series(blocks + " blocks", color, false, sizes,
                            line.stream().mapToDouble(Pair::fastestRatio).toArray()));
                }
                LinePanel panel = new LinePanel(PANEL_W, H, "block size");
                panel.draw(g, m * PANEL_W, mode + ": median µs per message (log)", times, true);
                g.translate(0, H);
                panel.draw(g, m * PANEL_W, mode + ": packed / zero-copy, fastest (>1: zero-copy wins)", ratios,
                        false);
                g.translate(0, -H);
            }
        });
    }

    static void write(List<Pair> pairs, Path png) throws IOException {
        LinePanel.write(draw(pairs), png);
    }
}
