package io.jrdma.tool;

import java.util.Locale;
import java.util.Arrays;

/**
 * A summary of measured latencies: median, 99th percentile and maximum, in microseconds.
 *
 * {@snippet class=io.jrdma.tool.ToolSnippets region=latencies}
 */
record Latencies(double medianMicros, double p99Micros, double maxMicros) {
    static Latencies of(long[] nanos) {
        if (nanos.length == 0) {
            throw new IllegalArgumentException("no latencies measured");
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return new Latencies(sorted[sorted.length / 2] / 1e3,
                sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)] / 1e3,
                sorted[sorted.length - 1] / 1e3);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "median %.1f us, p99 %.1f us, max %.1f us", medianMicros, p99Micros, maxMicros);
    }
}
