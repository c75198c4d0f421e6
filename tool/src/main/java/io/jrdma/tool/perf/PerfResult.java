package io.jrdma.tool.perf;

/**
 * One row of a {@code jrdma perf} table: a message size, how many iterations it ran, and what was measured: full
 * latency statistics, only the average latency (duration mode), or bandwidth.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=result}
 *
 * @param size       message size in bytes
 * @param iterations iterations measured
 * @param latency    latency statistics, or {@code null}
 * @param avgMicros  average latency in duration mode, or NaN
 * @param bandwidth  bandwidth, or {@code null}
 * @param warmup     untimed iterations this side ran at this size before the measured ones
 * @param retries    the device's transport retries during the measured run ({@link TransportRetries}), or -1
 * @param runStart   {@link System#nanoTime()} (CLOCK_MONOTONIC on Linux) as this side's measured run began, or 0
 * @param runEnd     ... and as its last operation completed, before its statistics: a profiler recording on the same
 *                   clock cuts the run out exactly
 */
record PerfResult(int size, long iterations, LatencyStatistics latency, double avgMicros,
                  BandwidthStatistics bandwidth, long warmup, long retries, long runStart, long runEnd) {

    static PerfResult latency(int size, long iterations, LatencyStatistics s) {
        return new PerfResult(size, iterations, s, Double.NaN, null, 0, -1, 0, 0);
    }

    static PerfResult averageLatency(int size, long iterations, double avgMicros) {
        return new PerfResult(size, iterations, null, avgMicros, null, 0, -1, 0, 0);
    }

    static PerfResult bandwidth(int size, long iterations, BandwidthStatistics b) {
        return new PerfResult(size, iterations, null, Double.NaN, b, 0, -1, 0, 0);
    }

    /** This result, preceded by {@code n} untimed iterations. */
    PerfResult withWarmup(long n) {
        return new PerfResult(size, iterations, latency, avgMicros, bandwidth, n, retries, runStart, runEnd);
    }

    /** This result, with {@code n} transport retries during its measured run (-1: unknown). */
    PerfResult withRetries(long n) {
        return new PerfResult(size, iterations, latency, avgMicros, bandwidth, warmup, n, runStart, runEnd);
    }

    /** This result, measured by this side between the {@link System#nanoTime()} values {@code start} and {@code end}. */
    PerfResult withRun(long start, long end) {
        return new PerfResult(size, iterations, latency, avgMicros, bandwidth, warmup, retries, start, end);
    }
}
