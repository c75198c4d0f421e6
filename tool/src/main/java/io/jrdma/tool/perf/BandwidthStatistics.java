package io.jrdma.tool.perf;

import java.util.Locale;

/**
 * The bandwidth row of perftest: average = bytes moved / time from the first post to the last completion; peak = the
 * best bytes-per-time over any run of consecutive messages (from the post of the first to the completion of the
 * last, as perftest measures it); message rate in millions per second.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=bandwidth}
 *
 * @param peakBytesPerSecond    best over runs of consecutive messages (0 when not measured, as in duration mode)
 * @param averageBytesPerSecond over the whole run
 * @param messagesPerSecond     over the whole run
 */
public record BandwidthStatistics(double peakBytesPerSecond, double averageBytesPerSecond, double messagesPerSecond) {

    /** Above this many messages the peak looks at runs of at most {@link #WINDOW}: the search is quadratic. */
    static final int FULL_SEARCH = 10_000;
    static final int WINDOW = 1_000;

    /** From the post and completion times of each of {@code n} messages of {@code size} bytes. */
    static BandwidthStatistics of(long[] postedNanos, long[] completedNanos, int n, int size) {
        if (n < 1) {
            throw new IllegalArgumentException("no messages measured");
        }
        long total = completedNanos[n - 1] - postedNanos[0];
        int window = n <= FULL_SEARCH ? n : WINDOW;
        double best = Double.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            int end = Math.min(n, i + window);
            for (int j = i; j < end; j++) {
                double perMessage = (double) (completedNanos[j] - postedNanos[i]) / (j - i + 1);
                if (perMessage < best) {
                    best = perMessage;
                }
            }
        }
        double peak = best <= 0 ? 0 : size * 1e9 / best;
        return ofTotal((long) size * n, n, total, peak);
    }

    /**
     * From totals only (duration mode, or a peer that stamps no message): no peak. Public for the benchmarks'
     * other Java peers (JUCX), which report their message rate the same way.
     *
     * @param bytes              bytes moved
     * @param messages           messages moved
     * @param nanos              the time they took
     * @param peakBytesPerSecond the peak, or 0 when not measured
     * @return the statistics
     */
    public static BandwidthStatistics ofTotal(long bytes, long messages, long nanos, double peakBytesPerSecond) {
        double seconds = Math.max(nanos, 1) / 1e9;
        return new BandwidthStatistics(peakBytesPerSecond, bytes / seconds, messages / seconds);
    }

    /** In perftest's units: MB/sec is 2^20 bytes a second, Gb/sec is 10^9 bits a second. */
    static double inUnits(double bytesPerSecond, boolean gbits) {
        return gbits ? bytesPerSecond * 8 / 1e9 : bytesPerSecond / (1 << 20);
    }

    /**
     * {@return the fields {@code jrdma perf --json} prints for a bandwidth row, each after a comma:
     * {@code ,"bw_peak_mb_per_sec":…,"bw_average_mb_per_sec":…,"msg_rate_mpps":…}}
     *
     * @param gbits Gb/s instead of MB/s
     */
    public String jsonFields(boolean gbits) {
        String unit = gbits ? "gbit_per_sec" : "mb_per_sec";
        return String.format(Locale.ROOT, ",\"bw_peak_%s\":%.6f,\"bw_average_%s\":%.6f,\"msg_rate_mpps\":%.6f",
                unit, inUnits(peakBytesPerSecond, gbits), unit, inUnits(averageBytesPerSecond, gbits),
                messagesPerSecond / 1e6);
    }
}
