package io.jrdma.benchmarks.report;

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
import java.util.function.Consumer;

/**
 * One panel of the benchmarks' pictures: lines over a log2 axis of sizes, a linear or log10 y axis with its grid, and a
 * legend of two columns under it, entries taken in pairs (a solid line and its dashed counterpart, one above the
 * other). Drawn with java.awt.
 *
 * <pre>{@code
 * new LinePanel(560, 440, "message size").draw(g, 0, "Typical latency (µs)", series, false);
 * }</pre>
 *
 * @param width  the panel's width in pixels, its frame and labels included
 * @param height the picture's height in pixels
 * @param xLabel what the sizes are
 */
record LinePanel(int width, int height, String xLabel) {
    static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
            new Color(0x9467bd), new Color(0xff7f0e)};
    private static final int LEFT = 70;
    private static final int RIGHT = 40;
    private static final int TOP = 40;
    private static final int BOTTOM = 120;
    private static final Stroke THIN = new BasicStroke(1f);
    private static final Stroke SOLID = new BasicStroke(2f);
    private static final Stroke DASHED = new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
            new float[] {7f, 5f}, 0f);

    /** A line: its legend, colour, whether dashed, and its points (sizes in bytes, values). */
    record Series(String label, Color color, boolean dashed, double[] sizes, double[] values) {
    }

    /** A white picture of {@code w} x {@code h} pixels, antialiased, with {@code drawing} drawn on it (headless). */
    static BufferedImage picture(int w, int h, Consumer<Graphics2D> drawing) {
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, w, h);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            drawing.accept(g);
        } finally {
            g.dispose();
        }
        return image;
    }

    /** Writes {@code image} as a PNG. */
    static void write(BufferedImage image, Path png) throws IOException {
        if (!ImageIO.write(image, "png", png.toFile())) {
            throw new IOException("no PNG writer in this JDK");
        }
    }

    /** Draws {@code series} in the panel whose left edge is at {@code x0}. */
    void draw(Graphics2D g, int x0, String title, List<Series> series, boolean logY) {
        int px = x0 + LEFT;
        int pw = width - LEFT - RIGHT;
        int ph = height - TOP - BOTTOM;
        g.setStroke(THIN);
        g.setColor(Color.BLACK);
        g.drawString(title, px, TOP - 14);
        if (series.stream().allMatch(s -> s.sizes().length == 0)) {
            g.drawString("no data", px + pw / 2 - 20, TOP + ph / 2);
            return;
        }
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        double minY = Double.MAX_VALUE;
        double maxY = -Double.MAX_VALUE;
        for (Series s : series) {
            for (int k = 0; k < s.sizes().length; k++) {
                minX = Math.min(minX, log2(s.sizes()[k]));
                maxX = Math.max(maxX, log2(s.sizes()[k]));
                minY = Math.min(minY, s.values()[k]);
                maxY = Math.max(maxY, s.values()[k]);
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
        // A label every power of two where they fit (some 50 pixels each), else every second or third.
        int labelStep = Math.max(1, (int) Math.ceil((maxX - minX) * 50 / pw));
        for (int e = (int) Math.ceil(minX); e <= maxX; e++) {
            int x = px + (int) Math.round((e - minX) / (maxX - minX) * pw);
            g.setColor(new Color(0xdddddd));
            g.drawLine(x, TOP, x, TOP + ph);
            if ((e - (int) Math.ceil(minX)) % labelStep == 0) {
                g.setColor(Color.DARK_GRAY);
                String label = PerformanceReport.size(1 << e);
                g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, TOP + ph + 16);
            }
        }
        g.setColor(Color.BLACK);
        g.drawRect(px, TOP, pw, ph);
        g.drawString(xLabel, px + pw / 2 - g.getFontMetrics().stringWidth(xLabel) / 2, TOP + ph + 34);
        int legendY = TOP + ph + 56;
        for (int k = 0; k < series.size(); k++) {
            Series s = series.get(k);
            g.setColor(s.color());
            g.setStroke(s.dashed() ? DASHED : SOLID);
            int[] xs = new int[s.sizes().length];
            int[] yv = new int[xs.length];
            for (int i = 0; i < xs.length; i++) {
                xs[i] = px + (int) Math.round((log2(s.sizes()[i]) - minX) / (maxX - minX) * pw);
                yv[i] = TOP + ph - (int) Math.round(ys.fraction(s.values()[i]) * ph);
                g.fillOval(xs[i] - 3, yv[i] - 3, 6, 6);
            }
            g.drawPolyline(xs, yv, xs.length);
            int lx = px + (k / 2 % 2) * (pw / 2);
            int ly = legendY + (k / 4) * 34 + (k % 2) * 15;
            g.drawLine(lx, ly - 4, lx + 28, ly - 4);
            g.drawString(s.label(), lx + 34, ly);
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
                for (int i = 0; i < n + 1; i++) {
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
