package io.jrdma.examples.bench;

import io.jrdma.examples.bench.Comparison.Row;
import io.jrdma.examples.bench.Comparison.Side;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
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
    private static final int LEFT = 70;
    private static final int RIGHT = 40;
    private static final int TOP = 40;
    private static final int BOTTOM = 120;
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
            new Color(0x9467bd), new Color(0xff7f0e)};
    private static final Stroke THIN = new BasicStroke(1f);
    private static final Stroke SOLID = new BasicStroke(2f);
    private static final Stroke DASHED = new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
            new float[] {7f, 5f}, 0f);

    private PerformancePlot() {
    }

    /** Draws the latency tests of {@code tests} on the left and the bandwidth tests on the right. */
    public static BufferedImage draw(List<Comparison> tests) {
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = new BufferedImage(2 * PANEL_W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            panel(g, 0, "Typical latency (µs)", tests.stream().filter(Comparison::latency).toList(),
                    Measurement::typicalMicros, false);
            panel(g, PANEL_W, "Average bandwidth (MB/s, log scale)",
                    tests.stream().filter(c -> !c.latency()).toList(), Measurement::mbPerSecond, true);
        } finally {
            g.dispose();
        }
        return image;
    }

    /** Draws and writes the PNG. */
    public static void write(List<Comparison> tests, Path png) throws IOException {
        if (!ImageIO.write(draw(tests), "png", png.toFile())) {
            throw new IOException("no PNG writer in this JDK");
        }
    }

    private static void panel(Graphics2D g, int x0, String title, List<Comparison> tests,
                              ToDoubleFunction<Measurement> metric, boolean logY) {
        int px = x0 + LEFT;
        int pw = PANEL_W - LEFT - RIGHT;
        int ph = H - TOP - BOTTOM;
        g.setStroke(THIN);
        g.setColor(Color.BLACK);
        g.drawString(title, px, TOP - 14);
        if (tests.isEmpty() || tests.stream().allMatch(t -> t.rows().isEmpty())) {
            g.drawString("no data", px + pw / 2 - 20, TOP + ph / 2);
            return;
        }
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        double minY = Double.MAX_VALUE;
        double maxY = -Double.MAX_VALUE;
        for (Comparison c : tests) {
            for (Row r : c.rows()) {
                double lx = log2(r.size());
                minX = Math.min(minX, lx);
                maxX = Math.max(maxX, lx);
                for (Side s : Side.values()) {
                    double y = r.median(s, metric);
                    minY = Math.min(minY, y);
                    maxY = Math.max(maxY, y);
                }
            }
        }
        if (maxX == minX) {
            maxX = minX + 1;
        }
        Scale ys = logY ? Scale.log(minY, maxY) : Scale.linear(0, maxY * 1.1);
        g.setColor(new Color(0xdddddd));
        for (double t : ys.ticks()) {
            int y = TOP + ph - (int) Math.round(ys.fraction(t) * ph);
            g.drawLine(px, y, px + pw, y);
            g.setColor(Color.DARK_GRAY);
            String label = ys.label(t);
            g.drawString(label, px - 8 - g.getFontMetrics().stringWidth(label), y + 4);
            g.setColor(new Color(0xdddddd));
        }
        for (int e = (int) Math.ceil(minX); e <= maxX; e++) {
            int x = px + (int) Math.round((e - minX) / (maxX - minX) * pw);
            g.setColor(new Color(0xdddddd));
            g.drawLine(x, TOP, x, TOP + ph);
            if ((e - (int) Math.ceil(minX)) % 2 == 0 || maxX - minX <= 10) {
                g.setColor(Color.DARK_GRAY);
                String label = PerformanceReport.size(1 << e);
                g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, TOP + ph + 16);
            }
        }
        g.setColor(Color.BLACK);
        g.drawRect(px, TOP, pw, ph);
        g.drawString("message size", px + pw / 2 - 35, TOP + ph + 34);
        int legendY = TOP + ph + 56;
        for (int i = 0; i < tests.size(); i++) {
            Comparison c = tests.get(i);
            g.setColor(COLORS[i % COLORS.length]);
            for (Side s : Side.values()) {
                g.setStroke(s == Side.C ? SOLID : DASHED);
                int[] xs = new int[c.rows().size()];
                int[] yv = new int[xs.length];
                for (int k = 0; k < xs.length; k++) {
                    Row r = c.rows().get(k);
                    xs[k] = px + (int) Math.round((log2(r.size()) - minX) / (maxX - minX) * pw);
                    yv[k] = TOP + ph - (int) Math.round(ys.fraction(r.median(s, metric)) * ph);
                    g.fillOval(xs[k] - 3, yv[k] - 3, 6, 6);
                }
                g.drawPolyline(xs, yv, xs.length);
                int lx = px + (i % 2) * (pw / 2);
                int ly = legendY + (i / 2) * 34 + (s == Side.C ? 0 : 15);
                g.drawLine(lx, ly - 4, lx + 28, ly - 4);
                g.drawString(c.test() + ", " + s.label(), lx + 34, ly);
            }
            g.setStroke(SOLID);
        }
    }

    private static double log2(double v) {
        return Math.log(v) / Math.log(2);
    }

    /** A y axis: where a value falls (0 at the bottom, 1 at the top), and its grid lines. */
    private record Scale(double min, double max, boolean log) {
        static Scale linear(double min, double max) {
            return new Scale(min, max <= min ? min + 1 : max, false);
        }

        static Scale log(double min, double max) {
            double lo = Math.pow(10, Math.floor(Math.log10(Math.max(min, 1e-9))));
            double hi = Math.pow(10, Math.ceil(Math.log10(Math.max(max, lo * 10))));
            return new Scale(lo, hi <= lo ? lo * 10 : hi, true);
        }

        double fraction(double v) {
            return log ? (Math.log10(v) - Math.log10(min)) / (Math.log10(max) - Math.log10(min))
                    : (v - min) / (max - min);
        }

        double[] ticks() {
            if (log) {
                int n = (int) Math.round(Math.log10(max / min));
                double[] t = new double[n + 1];
                for (int i = 0; i <= n; i++) {
                    t[i] = min * Math.pow(10, i);
                }
                return t;
            }
            double step = Math.pow(10, Math.floor(Math.log10((max - min) / 5)));
            while ((max - min) / step > 8) {
                step *= 2;
            }
            int n = (int) Math.floor((max - min) / step);
            double[] t = new double[n + 1];
            for (int i = 0; i <= n; i++) {
                t[i] = min + i * step;
            }
            return t;
        }

        String label(double v) {
            return v >= 100 || v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v)
                    : String.format(Locale.ROOT, "%.2g", v);
        }
    }
}
