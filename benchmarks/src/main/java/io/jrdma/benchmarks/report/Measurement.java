package io.jrdma.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One row of a latency or bandwidth result, whichever tool printed it: perftest's text table ({@link #perftest}) or
 * {@code jrdma perf --json} ({@link #jrdmaJson}). Latency rows carry the typical (median) and the least latency,
 * bandwidth rows the average bandwidth and the message rate; what a row does not measure is NaN.
 *
 * <pre>{@code
 * List<Measurement> rows = Measurement.perftest(Files.readString(Path.of("ib_write_lat.txt")));
 * rows.getFirst().typicalMicros();
 * }</pre>
 *
 * @param size          message size in bytes
 * @param typicalMicros typical latency in microseconds, or NaN
 * @param minMicros     least latency in microseconds, or NaN
 * @param mbPerSecond   average bandwidth in MB/s (2^20 bytes a second, as perftest counts), or NaN
 * @param mpps          message rate in millions of messages a second, or NaN
 */
public record Measurement(int size, double typicalMicros, double minMicros, double mbPerSecond, double mpps) {

    private static final Pattern JSON_ROW = Pattern.compile("\\{\"bytes\":(\\d+)[^{}]*}");

    /** A latency row. */
    public static Measurement latency(int size, double typicalMicros, double minMicros) {
        return new Measurement(size, typicalMicros, minMicros, Double.NaN, Double.NaN);
    }

    /** A bandwidth row. */
    public static Measurement bandwidth(int size, double mbPerSecond, double mpps) {
        return new Measurement(size, Double.NaN, Double.NaN, mbPerSecond, mpps);
    }

    /** Whether this is a latency row. */
    public boolean isLatency() {
        return !Double.isNaN(typicalMicros);
    }

    /**
     * The rows of perftest's result table ({@code ib_*_lat} or {@code ib_*_bw}, MB/s units) in {@code text}: the
     * lines after the {@code #bytes} header that start with a number.
     *
     * @throws IllegalArgumentException when there is no result table, or it is in Gb/s
     */
    public static List<Measurement> perftest(String text) {
        String[] lines = text.split("\\R");
        int header = -1;
        for (int i = 0; i < lines.length && header < 0; i++) {
            if (lines[i].contains("#bytes")) {
                header = i;
            }
        }
        if (header < 0) {
            throw new IllegalArgumentException("no perftest result table (no '#bytes' header)");
        }
        boolean latency = lines[header].contains("t_typical");
        if (!latency && !lines[header].contains("MB/sec")) {
            throw new IllegalArgumentException("perftest bandwidth must be in MB/sec: " + lines[header].strip());
        }
        List<Measurement> rows = new ArrayList<>();
        for (int i = header + 1; i < lines.length; i++) {
            String[] f = lines[i].strip().split("\\s+");
            if (f.length < 5 || !f[0].matches("\\d+")) {
                continue;
            }
            int size = Integer.parseInt(f[0]);
            rows.add(latency ? latency(size, Double.parseDouble(f[4]), Double.parseDouble(f[2]))
                    : bandwidth(size, Double.parseDouble(f[3]), Double.parseDouble(f[4])));
        }
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("perftest printed a header but no result row");
        }
        return rows;
    }

    /**
     * The result line of librdmacm's {@code rstream} (or {@code jrdma rstream}, which prints the same) in {@code text},
     * as a latency row of {@code size}-byte transfers whose typical latency is the line's {@code usec/xfer}, its last
     * column: the mean time of one transfer one way. rstream measures no least latency (NaN).
     *
     * @throws IllegalArgumentException when there is no result line
     */
    public static Measurement rstream(String text, int size) {
        return latency(size, Double.parseDouble(rstreamResult(text)[7]), Double.NaN);
    }

    /**
     * rstream's result line in {@code text} as a bandwidth row of {@code size}-byte transfers: the bytes both ways
     * over the timed loop in MB/s, from its {@code usec/xfer} (one transfer's mean time), not its {@code Gb/sec},
     * whose two decimals round a bandwidth of some 0.3 Gb/s by up to 2%; no message rate (NaN).
     *
     * @throws IllegalArgumentException when there is no result line
     */
    public static Measurement rstreamBandwidth(String text, int size) {
        return bandwidth(size, size / Double.parseDouble(rstreamResult(text)[7]) * 1e6 / (1 << 20), Double.NaN);
    }

    /**
     * How long rstream's timed loop took, in seconds: the time column of its result line ({@code 4.80s}).
     *
     * @throws IllegalArgumentException when there is no result line
     */
    public static double rstreamSeconds(String text) {
        String time = rstreamResult(text)[5];
        return Double.parseDouble(time.endsWith("s") ? time.substring(0, time.length() - 1) : time);
    }

    private static String[] rstreamResult(String text) {
        for (String line : text.split("\\R")) {
            String[] f = line.strip().split("\\s+");
            if (f.length == 8 && f[0].equals("custom")) {
                return f;
            }
        }
        throw new IllegalArgumentException("no rstream result line ('custom ...') in: " + text.strip());
    }

    /**
     * The final line of UCX's {@code ucx_perftest} in {@code text} ({@code Final: ITERATIONS PERCENTILE AVERAGE
     * OVERALL MB/S-AVERAGE MB/S-OVERALL RATE-AVERAGE RATE-OVERALL}): with {@code latency}, a latency row whose typical
     * latency is the percentile (one way; ucx_perftest reports no least latency, NaN); else a bandwidth row of the
     * overall MB/s (2^20 bytes, as perftest counts) and message rate.
     *
     * @throws IllegalArgumentException when there is no final line
     */
    public static Measurement ucxPerftest(String text, int size, boolean latency) {
        for (String line : text.split("\\R")) {
            String[] f = line.strip().split("\\s+");
            if (f.length == 9 && f[0].equals("Final:")) {
                return latency ? latency(size, Double.parseDouble(f[2]), Double.NaN)
                        : bandwidth(size, Double.parseDouble(f[6]), Double.parseDouble(f[8]) / 1e6);
            }
        }
        throw new IllegalArgumentException("no ucx_perftest result line ('Final: ...') in: " + text.strip());
    }

    /**
     * The rows of {@code jrdma perf --json}: {@code t_typical_usec} and {@code t_min_usec} for latency, {@code bw_average_mb_per_sec} and
     * {@code msg_rate_mpps} for bandwidth.
     *
     * @throws IllegalArgumentException when there is no row, or a row has neither
     */
    public static List<Measurement> jrdmaJson(String json) {
        List<Measurement> rows = new ArrayList<>();
        Matcher m = JSON_ROW.matcher(json);
        while (m.find()) {
            String row = m.group();
            int size = Integer.parseInt(m.group(1));
            double typical = field(row, "t_typical_usec");
            double mb = field(row, "bw_average_mb_per_sec");
            if (!Double.isNaN(typical)) {
                rows.add(latency(size, typical, field(row, "t_min_usec")));
            } else if (!Double.isNaN(mb)) {
                rows.add(bandwidth(size, mb, field(row, "msg_rate_mpps")));
            } else {
                throw new IllegalArgumentException("jrdma perf row without typical latency or MB/s bandwidth: " + row);
            }
        }
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("no jrdma perf result row in: " + json.strip());
        }
        return rows;
    }

    static double field(String row, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\":(-?[0-9.]+(?:[eE][-+]?\\d+)?)").matcher(row);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    @Override
    public String toString() {
        return isLatency() ? String.format(Locale.ROOT, "%d B: %.2f us (min %.2f us)", size, typicalMicros, minMicros)
                : String.format(Locale.ROOT, "%d B: %.2f MB/s, %.6f Mpps", size, mbPerSecond, mpps);
    }
}
