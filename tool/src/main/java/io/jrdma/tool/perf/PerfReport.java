package io.jrdma.tool.perf;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code jrdma perf} prints: perftest's banner and result tables, same columns in the same order and its row
 * layout (the banner adds the warm-up, which perftest does not have), or with {@code --json} one JSON document with
 * every row.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=report}
 */
final class PerfReport {
    static final String LINE = "-".repeat(87);
    static final String LATENCY_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
            + "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    static final String DURATION_LATENCY_HEADER = " #bytes        #iterations       t_avg[usec]    tps average";
    private static final String BANDWIDTH_HEADER = " #bytes     #iterations    BW peak[%1$s]    BW average[%1$s]"
            + "   MsgRate[Mpps]";

    private final PerfOptions options;
    private final PrintStream out;
    private final List<PerfResult> results = new ArrayList<>();
    private String device = "";

    PerfReport(PerfOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** The test's banner, as perftest prints it before connecting. */
    void banner(String deviceName, String linkType, int gidIndex) {
        this.device = deviceName;
        if (options.json()) {
            return;
        }
        out.println(LINE);
        out.println("                    " + options.test().title());
        out.printf(Locale.ROOT, " Device         : %s%n", deviceName);
        out.println(" Connection type : RC");
        out.printf(Locale.ROOT, " TX depth        : %d%n", options.txDepth());
        out.printf(Locale.ROOT, " Link type       : %s%n", linkType);
        if (gidIndex >= 0) {
            out.printf(Locale.ROOT, " GID index       : %d%n", gidIndex);
        }
        out.printf(Locale.ROOT, " Max inline data : %d[B]%n", options.inlineSize());
        out.printf(Locale.ROOT, " rdma_cm QPs     : %s%n", options.rdmaCm() ? "ON" : "OFF");
        out.printf(Locale.ROOT, " Warm-up         : %d iterations per size%s, untimed, then until the JIT is idle%n",
                options.warmup(), " (at most " + (PerfOptions.MAX_WARMUP_BYTES >> 20) + " MiB)");
        out.println(LINE);
    }

    /** A line of connection details (addresses, keys) under the banner. */
    void detail(String line) {
        if (!options.json()) {
            out.println(line);
        }
    }

    /** Prints {@code r} (after the table header, for the first row) and keeps it for the JSON document. */
    void add(PerfResult r) {
        if (results.isEmpty() && !options.json()) {
            out.println(LINE);
            out.println(header(r));
        }
        results.add(r);
        if (!options.json()) {
            out.println(row(r, options.reportGbits()));
        }
    }

    /** Closes the table, or prints the JSON document. */
    void finish() {
        if (options.json()) {
            out.println(json());
        } else if (!results.isEmpty()) {
            out.println(LINE);
        }
    }

    String header(PerfResult r) {
        if (r.bandwidth() != null) {
            return bandwidthHeader(options.reportGbits());
        }
        return r.latency() != null ? LATENCY_HEADER : DURATION_LATENCY_HEADER;
    }

    static String bandwidthHeader(boolean gbits) {
        return String.format(Locale.ROOT, BANDWIDTH_HEADER, gbits ? "Gb/sec" : "MB/sec");
    }

    /** One row in perftest's layout ({@code REPORT_FMT_LAT}, {@code REPORT_FMT}). */
    static String row(PerfResult r, boolean gbits) {
        if (r.bandwidth() != null) {
            BandwidthStatistics b = r.bandwidth();
            return String.format(Locale.ROOT, " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f", r.size(),
                    r.iterations(), BandwidthStatistics.inUnits(b.peakBytesPerSecond(), gbits),
                    BandwidthStatistics.inUnits(b.averageBytesPerSecond(), gbits), b.messagesPerSecond() / 1e6);
        }
        LatencyStatistics s = r.latency();
        if (s == null) {
            return String.format(Locale.ROOT, " %-7d       %-10d        %-7.2f        %-7.2f", r.size(),
                    r.iterations(), r.avgMicros(), 1e6 / r.avgMicros());
        }
        return String.format(Locale.ROOT, " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t"
                        + "%-7.2f\t\t%-7.2f \t\t%-7.2f", r.size(), r.iterations(), s.minMicros(), s.maxMicros(),
                s.typicalMicros(), s.avgMicros(), s.stdevMicros(), s.p99Micros(), s.p999Micros());
    }

    /** Every row as one JSON object: {@code {"test":…,"device":…,"unit":…,"results":[…]}}. */
    String json() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "{\"test\":\"%s\",\"device\":\"%s\",\"rdma_cm\":%b,\"warmup\":%d,"
                        + "\"results\":[", options.test().label(), device.replace("\\", "\\\\").replace("\"", "\\\""),
                options.rdmaCm(), options.warmup()));
        for (int i = 0; i < results.size(); i++) {
            PerfResult r = results.get(i);
            sb.append(i == 0 ? "" : ",");
            jsonRow(sb, r, options.reportGbits());
        }
        return sb.append("]}").toString();
    }

    /**
     * One result as a JSON object, the fields {@code jrdma perf --json} prints for it: {@code jrdma endpoint-perf}
     * prints its rows the same way, so that one parser reads both.
     */
    static void jsonRow(StringBuilder sb, PerfResult r, boolean gbits) {
        sb.append(String.format(Locale.ROOT,
                "{\"bytes\":%d,\"iterations\":%d,\"warmup_iterations\":%d", r.size(), r.iterations(), r.warmup()));
        if (r.bandwidth() != null) {
            sb.append(r.bandwidth().jsonFields(gbits));
        } else if (r.latency() != null) {
            sb.append(r.latency().jsonFields());
        } else {
            sb.append(String.format(Locale.ROOT, ",\"t_avg_usec\":%.3f", r.avgMicros()));
        }
        if (r.retries() >= 0) {
            sb.append(",\"transport_retries\":").append(r.retries());
        }
        if (r.runStart() != 0) {
            sb.append(",\"run_monotonic_ns\":[").append(r.runStart()).append(',').append(r.runEnd()).append(']');
        }
        sb.append('}');
    }
}
