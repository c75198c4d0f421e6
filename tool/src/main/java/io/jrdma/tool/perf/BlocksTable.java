package io.jrdma.tool.perf;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code jrdma blocks} prints: a banner and one table row per mode and variant, or with {@code --json} one JSON
 * document with every row.
 *
 * {@snippet class=io.jrdma.tool.perf.BlocksSnippets region=table}
 */
final class BlocksTable {
    static final String HEADER = " block[B]  #blocks  stride[B]  mode   variant     #sge  t_median[usec]  t_min[usec]  "
            + "BW[MB/sec]  CPU client[usec]  CPU server[usec]";

    private final BlocksOptions options;
    private final String device;
    private final PrintStream out;
    private final List<BlocksResult> results = new ArrayList<>();

    /** A table of {@code options}' runs on {@code device}, printed to {@code out}. */
    BlocksTable(BlocksOptions options, String device, PrintStream out) {
        this.options = options;
        this.device = device;
        this.out = out;
    }

    /** What runs where, unless the output is JSON. */
    void banner(String linkType, int gidIndex) {
        if (options.json()) {
            return;
        }
        out.println(PerfReport.LINE);
        out.println("          Non-contiguous blocks: scatter/gather (zero-copy) against packing");
        out.printf(Locale.ROOT, " Device          : %s%n", device);
        out.println(" Connection type : RC, one message in flight");
        out.printf(Locale.ROOT, " Link type       : %s%n", linkType);
        if (gidIndex >= 0) {
            out.printf(Locale.ROOT, " GID index       : %d%n", gidIndex);
        }
        for (BlockLayout l : options.layouts()) {
            out.printf(Locale.ROOT, " Layout          : %s: %d B of payload in %d B%n", l, l.payload(), l.span());
        }
        out.printf(Locale.ROOT, " Messages        : %d timed after %d untimed, per layout, mode and variant%n",
                options.iterations(), options.warmup());
        for (BlocksMode m : options.modes()) {
            out.printf(Locale.ROOT, " %-6s          : %s%n", m.label(), m.description());
        }
        out.println(PerfReport.LINE);
    }

    /** Prints {@code r} (after the header, for the first row) and keeps it for the JSON document. */
    void add(BlocksResult r) {
        if (results.isEmpty() && !options.json()) {
            out.println(HEADER);
        }
        results.add(r);
        if (!options.json()) {
            out.println(row(r));
        }
    }

    /** Closes the table, or prints the JSON document. */
    void finish() {
        if (options.json()) {
            out.println(json());
        } else if (!results.isEmpty()) {
            out.println(PerfReport.LINE);
            out.println(" CPU: thread CPU time per message outside busy-poll waits; every destination checked byte "
                    + "by byte, gaps too");
        }
    }

    static String row(BlocksResult r) {
        BlockLayout l = r.layout();
        return String.format(Locale.ROOT, " %8d  %7d  %9d  %-6s %-10s %5d  %14.2f  %11.2f  %10.2f  %16.2f  %16.2f",
                l.blockSize(), l.blocks(), l.stride(), r.mode().label(), r.variant(), r.sges(), r.typicalMicros(), r.minMicros(), r.mbPerSecond(), r.clientCpuMicros(),
                r.serverCpuMicros());
    }

    /** {@code {"test":"blocks","device":…,"warmup":…,"results":[{"block_size":…,"mode":…,…},…]}}. */
    String json() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "{\"test\":\"blocks\",\"device\":\"%s\","
                + "\"warmup\":%d,\"results\":[", device.replace("\\", "\\\\").replace("\"", "\\\""), options.warmup()));
        for (int i = 0; i < results.size(); i++) {
            BlocksResult r = results.get(i);
            BlockLayout l = r.layout();
            sb.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT, "{\"block_size\":%d,\"blocks\":%d,"
                            + "\"stride\":%d,\"payload_bytes\":%d,\"mode\":\"%s\",\"variant\":\"%s\",\"sges\":%d,"
                            + "\"iterations\":%d,\"warmup_iterations\":%d,\"t_median_usec\":%.3f,"
                            + "\"t_min_usec\":%.3f,\"t_avg_usec\":%.3f,\"bw_mb_per_sec\":%.3f,"
                            + "\"cpu_client_usec\":%.3f,\"cpu_server_usec\":%.3f,\"cpu_client_total_usec\":%.3f,"
                            + "\"cpu_server_total_usec\":%.3f,\"checked\":true", l.blockSize(), l.blocks(),
                    l.stride(), l.payload(), r.mode().label(), r.variant(), r.sges(), r.iterations(), r.warmup(),
                    r.typicalMicros(), r.minMicros(), r.avgMicros(), r.mbPerSecond(), r.clientCpuMicros(),
                    r.serverCpuMicros(), r.clientCpuTotalMicros(), r.serverCpuTotalMicros()));
            if (r.retries() >= 0) {
                sb.append(",\"transport_retries\":").append(r.retries());
            }
            sb.append('}');
        }
        return sb.append("]}").toString();
    }
}
