package io.jrdma.tool.perf;

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
record BandwidthStatistics(double peakBytesPerSecond, double averageBytesPerSecond, double messagesPerSecond) {

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

    /** From totals only (duration mode): no peak. */
    static BandwidthStatistics ofTotal(long bytes, long messages, long nanos, double peakBytesPerSecond) {
        double seconds = Math.max(nanos, 1) / 1e9;
        return new BandwidthStatistics(peakBytesPerSecond, bytes / seconds, messages / seconds);
    }

    /** In perftest's units: MB/sec is 2^20 bytes a second, Gb/sec is 10^9 bits a second. */
    static double inUnits(double bytesPerSecond, boolean gbits) {
        return gbits ? bytesPerSecond * 8 / 1e9 : bytesPerSecond / (1 << 20);
    }
}
