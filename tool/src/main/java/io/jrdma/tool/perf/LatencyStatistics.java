package io.jrdma.tool.perf;

import java.util.Arrays;
import java.util.Locale;

/**
 * The latency row of perftest, computed its way: one sample per iteration (the time between the starts of
 * consecutive iterations), sorted, the two largest set aside as outliers ({@code LAT_MEASURE_TAIL}); min, typical
 * (median), average, population standard deviation and percentiles over the rest, and as max the sample right above
 * them. Every value is divided by the round-trip factor (2 for ping-pongs, which report half a round trip).
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=latency}
 *
 * @param minMicros     fastest sample
 * @param maxMicros     slowest sample below the two outliers set aside
 * @param typicalMicros median
 * @param avgMicros     mean
 * @param stdevMicros   population standard deviation
 * @param p99Micros     99th percentile
 * @param p999Micros    99.9th percentile
 */
public record LatencyStatistics(double minMicros, double maxMicros, double typicalMicros, double avgMicros,
                         double stdevMicros, double p99Micros, double p999Micros) {

    /** perftest's {@code LAT_MEASURE_TAIL}: samples at the top left out of every statistic. */
    static final int TAIL = 2;

    /**
     * From the start times of {@code iterations} iterations: {@code iterations - 1} samples. Public for the
     * benchmarks' other Java peers (JUCX), which report their latency the same way.
     *
     * @param startNanos the {@link System#nanoTime()} at the start of each iteration
     * @param iterations how many of {@code startNanos} to take (at least {@value #TAIL} + 3)
     * @param rttFactor  2 for a ping-pong, which reports half a round trip; 1 otherwise
     * @return the statistics
     */
    public static LatencyStatistics ofStamps(long[] startNanos, int iterations, int rttFactor) {
        if (iterations < TAIL + 3) {
            throw new IllegalArgumentException("at least " + (TAIL + 3) + " iterations are needed, not " + iterations);
        }
        long[] samples = new long[iterations - 1];
        for (int i = 0; i < samples.length; i++) {
            samples[i] = startNanos[i + 1] - startNanos[i];
        }
        return of(samples, rttFactor);
    }

    /** From per-iteration samples in nanoseconds (at least {@value #TAIL} + 2). */
    static LatencyStatistics of(long[] sampleNanos, int rttFactor) {
        if (sampleNanos.length < TAIL + 2) {
            throw new IllegalArgumentException("at least " + (TAIL + 2) + " samples are needed, not "
                    + sampleNanos.length);
        }
        long[] d = sampleNanos.clone();
        Arrays.sort(d);
        int n = d.length - TAIL;
        double unit = 1e3 * rttFactor;
        double median = n % 2 == 0 ? (d[n / 2] + d[n / 2 - 1]) / 2.0 : d[n / 2];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += d[i] / unit;
        }
        double avg = sum / n;
        double squares = 0;
        for (int i = 0; i < n; i++) {
            double dev = avg - d[i] / unit;
            squares += dev * dev;
        }
        return new LatencyStatistics(d[0] / unit, d[n] / unit, median / unit, avg, Math.sqrt(squares / n),
                d[(int) Math.ceil(n * 0.99)] / unit, d[(int) Math.ceil(n * 0.999)] / unit);
    }

    /**
     * {@return the fields {@code jrdma perf --json} prints for a latency row, each after a comma:
     * {@code ,"t_min_usec":…,"t_typical_usec":…}}
     */
    public String jsonFields() {
        return String.format(Locale.ROOT, ",\"t_min_usec\":%.3f,\"t_max_usec\":%.3f,"
                        + "\"t_typical_usec\":%.3f,\"t_avg_usec\":%.3f,\"t_stdev_usec\":%.3f,"
                        + "\"p99_usec\":%.3f,\"p99_9_usec\":%.3f", minMicros, maxMicros, typicalMicros, avgMicros,
                stdevMicros, p99Micros, p999Micros);
    }
}
