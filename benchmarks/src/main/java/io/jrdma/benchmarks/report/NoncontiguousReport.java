package io.jrdma.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Turns the results directory of {@code scripts/bench-blocks} into {@code noncontiguous.md} and
 * {@code noncontiguous.png}: the verbs course's non-contiguous assignment, zero-copy scatter/gather against packing,
 * mode by mode. The directory holds {@code env.txt} ({@code key=value} lines about the run) and
 * {@code blocks_*.json} ({@code jrdma blocks --json}, one per group of block sizes); a file without a result row (the
 * run failed, or its check found a wrong byte) is left out and named on the page.
 *
 * <pre>{@code
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/jmh-classpath.txt)" \
 *     io.jrdma.benchmarks.report.NoncontiguousReport target/bench-blocks docs
 * }</pre>
 */
public final class NoncontiguousReport {
    /** The modes, in the page's order. */
    static final List<String> MODES = List.of("write", "read", "send");
    /** Zero-copy and packed closer than this (as a ratio of medians) are a tie. */
    static final double TIE = 0.05;
    /** A run whose median message took this many times its fastest was disturbed (marked on the page). */
    static final double DISTURBED = 3;
    private static final Pattern ROW = Pattern.compile("\\{\"block_size\":\\d+[^{}]*}");
    private static final Pattern RUN = Pattern.compile("blocks_.*\\.json");
    private static final Map<String, String> SETUP = Map.ofEntries(
            Map.entry("host_cpu", "Host CPU"), Map.entry("host_cores", "Host cores"),
            Map.entry("host_load", "Host load"), Map.entry("guest", "Guest"), Map.entry("guest_cores", "Guest CPUs"),
            Map.entry("pinning", "Pinning"), Map.entry("kernel", "Kernel"), Map.entry("device", "RDMA device"),
            Map.entry("jdk", "JDK"), Map.entry("jrdma", "jrdma"), Map.entry("runs", "Messages"),
            Map.entry("java_command", "Command, both sides"), Map.entry("date", "Date"),
            Map.entry("wall", "Wall time"), Map.entry("left_out", "Runs left out (failed)"));
    private static final List<String> SETUP_ORDER = List.of("host_cpu", "host_cores", "host_load", "guest",
            "guest_cores", "pinning", "kernel", "device", "jdk", "jrdma", "runs", "java_command", "date", "wall",
            "left_out");

    private NoncontiguousReport() {
    }

    /**
     * One row of {@code jrdma blocks --json}.
     *
     * @param blockSize    bytes per block
     * @param blocks       blocks per message
     * @param stride       bytes from a block's start to the next one's
     * @param mode         write, read or send
     * @param packed       whether the CPU packed the blocks (else zero-copy)
     * @param medianMicros median time per message
     * @param minMicros    fastest message
     * @param mbPerSecond  payload bandwidth, MB/s
     * @param cpuClient    the client's CPU time per message outside its waits, µs
     * @param cpuServer    the server's, µs
     */
    record Row(int blockSize, int blocks, int stride, String mode, boolean packed, double medianMicros,
               double minMicros, double mbPerSecond, double cpuClient, double cpuServer) {
        int payload() {
            return blockSize * blocks;
        }

        /** Whether the median message took {@value #DISTURBED} times the fastest or more. */
        boolean disturbed() {
            return medianMicros >= DISTURBED * minMicros;
        }

        boolean sameLayout(Row o) {
            return blockSize == o.blockSize && blocks == o.blocks && stride == o.stride && mode.equals(o.mode);
        }
    }

    /** A layout in one mode, both ways. */
    record Pair(Row zeroCopy, Row packed) {
        /** Packed's median over zero-copy's: above 1, zero-copy is faster. */
        double ratio() {
            return packed.medianMicros() / zeroCopy.medianMicros();
        }

        /** Packed's fastest message over zero-copy's. */
        double fastestRatio() {
            return packed.minMicros() / zeroCopy.minMicros();
        }
    }

    public static void main(String[] args) throws IOException {
        BenchReport.Directories dirs = BenchReport.Directories.of(args, "NoncontiguousReport");
        Path results = dirs.results();
        Path docs = dirs.docs();
        Map<String, String> env = BenchReport.environment(Files.readString(results.resolve("env.txt")));
        List<String> leftOut = new ArrayList<>();
        List<Row> rows = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> list = Files.list(results)) {
            files = list.filter(f -> RUN.matcher(f.getFileName().toString()).matches()).sorted().toList();
        }
        for (Path f : files) {
            List<Row> r = rows(Files.readString(f));
            if (r.isEmpty()) {
                leftOut.add(f.getFileName().toString());
            }
            rows.addAll(r);
        }
        if (!leftOut.isEmpty()) {
            env.put("left_out", leftOut.size() + ": " + String.join(", ", leftOut));
            System.err.println("bench-blocks: left out (no result): " + leftOut);
        }
        Files.createDirectories(docs);
        Files.writeString(docs.resolve("noncontiguous.md"), markdown(env, rows));
        NoncontiguousPlot.write(pairs(rows), docs.resolve("noncontiguous.png"));
        System.out.println("bench-blocks: wrote " + docs.resolve("noncontiguous.md") + " and "
                + docs.resolve("noncontiguous.png"));
    }

    /** The rows of one {@code jrdma blocks --json} document; none when it has none (a failed run). */
    static List<Row> rows(String json) {
        List<Row> rows = new ArrayList<>();
        Matcher m = ROW.matcher(json);
        while (m.find()) {
            String r = m.group();
            rows.add(new Row((int) Measurement.field(r, "block_size"), (int) Measurement.field(r, "blocks"),
                    (int) Measurement.field(r, "stride"), text(r, "mode"), text(r, "variant").equals("packed"),
                    Measurement.field(r, "t_median_usec"), Measurement.field(r, "t_min_usec"),
                    Measurement.field(r, "bw_mb_per_sec"), Measurement.field(r, "cpu_client_usec"),
                    Measurement.field(r, "cpu_server_usec")));
        }
        return rows;
    }

    private static String text(String row, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\"([^\"]*)\"").matcher(row);
        if (!m.find()) {
            throw new IllegalArgumentException("jrdma blocks row without " + name + ": " + row);
        }
        return m.group(1);
    }

    /** Zero-copy and packed rows of the same layout and mode, by mode, block count and block size. */
    static List<Pair> pairs(List<Row> rows) {
        List<Pair> pairs = new ArrayList<>();
        for (Row z : rows) {
            if (!z.packed()) {
                rows.stream().filter(p -> p.packed() && p.sameLayout(z)).findFirst()
                        .ifPresent(p -> pairs.add(new Pair(z, p)));
            }
        }
        pairs.sort(Comparator.comparingInt((Pair p) -> MODES.indexOf(p.zeroCopy().mode()))
                .thenComparingInt(p -> p.zeroCopy().blocks()).thenComparingInt(p -> p.zeroCopy().blockSize()));
        return pairs;
    }

    /** The whole page. */
    static String markdown(Map<String, String> env, List<Row> rows) {
        List<Pair> pairs = pairs(rows);
        StringBuilder md = new StringBuilder();
        md.append("# Non-contiguous blocks: scatter/gather against packing, on Soft-RoCE\n\n")
                .append("Generated by `scripts/bench-blocks` from `jrdma blocks`: the verbs course's non-contiguous "
                        + "assignment as a benchmark. A message is `blocks` blocks of `block size` bytes, each "
                        + "starting `stride` bytes after the one before (here twice the block size, so every block "
                        + "is followed by a gap as large as itself). It moves in three modes:\n\n")
                .append("- **write**, gather WRITE: the client's strided blocks into the server's contiguous "
                        + "buffer.\n")
                .append("- **read**, scatter READ: the server's contiguous buffer into the client's strided "
                        + "blocks.\n")
                .append("- **send**, gather SEND into scatter RECV: the client's strided blocks into the "
                        + "server's strided blocks; the server acknowledges each message (an 8-byte RDMA write) "
                        + "once its blocks are in place.\n\n")
                .append("Each mode runs two ways. **Zero-copy**: one work request with one scatter/gather entry "
                        + "(SGE) per block, the device gathers or scatters. **Packed**: one SGE over a contiguous "
                        + "staging buffer; the CPU copies the blocks into it before a write or send and out of it "
                        + "into the strided layout after a read or receive. A write's destination is contiguous "
                        + "either way, so packed write copies on the client only; packed send copies on both "
                        + "sides.\n\n")
                .append("One message is in flight. *Time* is from the start of one message to the start of the "
                        + "next as the client sees it (post to completion, plus its copies; for send, until the "
                        + "server's acknowledgement): median and fastest over the timed messages. *MB/s* is the "
                        + "payload (block size x blocks, 2^20 bytes a MB) over the average time. *CPU* is each "
                        + "side's thread CPU time (user and system) over the timed run per message, minus the CPU "
                        + "time of its busy-poll waits: its copies, its posts and, on Soft-RoCE, the kernel's "
                        + "protocol work that runs in the posting thread. After every timed run the destination is "
                        + "checked byte by byte (blocks against the data of that run, gaps and the bytes after the "
                        + "last block untouched); a wrong byte fails the run, which then leaves no row.\n\n")
                .append("The device is `rdma_rxe` in a qemu TCG VM: every instruction is emulated and the "
                        + "device's work is the guest kernel's, on the same two vCPUs. The absolute numbers say "
                        + "nothing about RDMA hardware; what the page compares is the two ways under the same "
                        + "conditions. A host busy with other work makes single runs noisy: compare the fastest "
                        + "messages too, which noise does not inflate. Send suffers first: both sides busy-poll at "
                        + "once and each message needs both vCPUs in turn, so when the host's cores are taken qemu's "
                        + "vCPU threads wait for the host's scheduler (most likely the cause of its medians of "
                        + "several ms; write and read do all their work in the client's own post and wait for "
                        + "nobody).\n\n");
        md.append("## Setup\n\n| | |\n|---|---|\n");
        for (String key : SETUP_ORDER) {
            String v = env.get(key);
            if (v != null && !v.isBlank()) {
                md.append("| ").append(SETUP.get(key)).append(" | ").append(v.replace("|", "\\|")).append(" |\n");
            }
        }
        md.append("\n## Summary\n\n").append(String.format(Locale.ROOT, "Packed/zero-copy is packed's median time "
                + "over zero-copy's: above 1 zero-copy is faster. Within %.0f%% counts as a tie. The last column "
                + "compares the fastest messages, which a disturbed run does not inflate; runs whose median is "
                + "%.0f times their fastest message or more are marked † in the tables below.%n%n", 100 * TIE,
                DISTURBED));
        md.append("| Mode | Zero-copy faster | Packed faster | Tie | Packed/zero-copy, median over layouts | "
                + "Range | Disturbed runs | Packed/zero-copy fastest messages, median over layouts (range) |\n"
                + "|---|---:|---:|---:|---:|---|---:|---|\n");
        for (String mode : MODES) {
            List<Pair> p = pairs.stream().filter(x -> x.zeroCopy().mode().equals(mode)).toList();
            if (p.isEmpty()) {
                continue;
            }
            double[] ratios = p.stream().mapToDouble(Pair::ratio).sorted().toArray();
            double[] fastest = p.stream().mapToDouble(Pair::fastestRatio).sorted().toArray();
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %.2f | %.2f to %.2f | %d of %d | %.2f (%.2f to "
                            + "%.2f) |%n", mode, p.stream().filter(x -> x.ratio() > 1 + TIE).count(),
                    p.stream().filter(x -> x.ratio() < 1 - TIE).count(),
                    p.stream().filter(x -> Math.abs(x.ratio() - 1) <= TIE).count(), median(ratios), ratios[0],
                    ratios[ratios.length - 1], p.stream().mapToLong(x -> (x.zeroCopy().disturbed() ? 1 : 0)
                            + (x.packed().disturbed() ? 1 : 0)).sum(), 2 * p.size(), median(fastest), fastest[0],
                    fastest[fastest.length - 1]));
        }
        md.append("\n![Time per message by block size, zero-copy and packed, per mode](noncontiguous.png)\n\n");
        md.append("## What it costs\n\n");
        for (String mode : MODES) {
            costs(md, mode, pairs);
        }
        for (String mode : MODES) {
            List<Pair> p = pairs.stream().filter(x -> x.zeroCopy().mode().equals(mode)).toList();
            if (!p.isEmpty()) {
                md.append("\n## ").append(mode).append("\n\n");
                table(md, p);
            }
        }
        return md.toString();
    }

    /**
     * What the numbers say of one mode's costs: the price of an SGE (zero-copy's time growing with the block count
     * beyond packed's at the smallest blocks, where the bytes weigh least) and the price of the copies (packed's CPU
     * over zero-copy's at the largest payload, per KiB).
     */
    private static void costs(StringBuilder md, String mode, List<Pair> pairs) {
        List<Pair> p = pairs.stream().filter(x -> x.zeroCopy().mode().equals(mode)).toList();
        if (p.isEmpty()) {
            return;
        }
        md.append("- **").append(mode).append("**: ");
        int smallest = p.stream().mapToInt(x -> x.zeroCopy().blockSize()).min().orElseThrow();
        List<Pair> small = p.stream().filter(x -> x.zeroCopy().blockSize() == smallest).toList();
        Optional<Pair> few = small.stream().min(Comparator.comparingInt(x -> x.zeroCopy().blocks()));
        Optional<Pair> many = small.stream().max(Comparator.comparingInt(x -> x.zeroCopy().blocks()));
        if (few.isPresent() && many.get().zeroCopy().blocks() > few.get().zeroCopy().blocks()) {
            int extra = many.get().zeroCopy().blocks() - few.get().zeroCopy().blocks();
            double zc = many.get().zeroCopy().minMicros() - few.get().zeroCopy().minMicros();
            double pk = many.get().packed().minMicros() - few.get().packed().minMicros();
            md.append(String.format(Locale.ROOT, "with %s blocks, going from %d to %d of them adds %.1f µs to "
                            + "zero-copy's fastest message and %.1f µs to packed's, which moves the same bytes in "
                            + "one SGE: about %.2f µs per extra SGE on top of the bytes. ",
                    PerformanceReport.size(smallest),
                    few.get().zeroCopy().blocks(), many.get().zeroCopy().blocks(), zc, pk, (zc - pk) / extra));
        }
        Pair largest = p.stream().max(Comparator.comparingInt(x -> x.zeroCopy().payload())).orElseThrow();
        double cpuZc = largest.zeroCopy().cpuClient() + largest.zeroCopy().cpuServer();
        double cpuPk = largest.packed().cpuClient() + largest.packed().cpuServer();
        double kib = largest.zeroCopy().payload() / 1024.0;
        md.append(String.format(Locale.ROOT, "At the largest payload (%d x %s = %s), packed costs %.0f µs of CPU "
                        + "per message on both sides together against zero-copy's %.0f µs (%+.2f µs per KiB), and "
                        + "its median time is %.2f times zero-copy's.%n", largest.zeroCopy().blocks(),
                PerformanceReport.size(largest.zeroCopy().blockSize()), PerformanceReport.size(largest.zeroCopy()
                        .payload()), cpuPk, cpuZc, (cpuPk - cpuZc) / kib, largest.ratio()));
    }

    private static void table(StringBuilder md, List<Pair> pairs) {
        md.append("| Block | Blocks | Payload | Zero-copy µs, median (min) | Packed µs, median (min) | "
                + "Packed/zero-copy | Zero-copy MB/s | Packed MB/s | CPU µs client, zero-copy / packed | "
                + "CPU µs server, zero-copy / packed |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Pair p : pairs) {
            Row z = p.zeroCopy();
            Row k = p.packed();
            double r = p.ratio();
            String ratio = String.format(Locale.ROOT, "%.2f", r);
            md.append(String.format(Locale.ROOT, "| %s | %d | %s | %.1f (%.1f)%s | %.1f (%.1f)%s | %s | %.1f | %.1f | "
                            + "%.1f / %.1f | %.1f / %.1f |%n", PerformanceReport.size(z.blockSize()), z.blocks(),
                    PerformanceReport.size(z.payload()), z.medianMicros(), z.minMicros(), z.disturbed() ? " †" : "",
                    k.medianMicros(), k.minMicros(), k.disturbed() ? " †" : "", Math.abs(r - 1) > TIE ? "**" + ratio + "**" : ratio, z.mbPerSecond(),
                    k.mbPerSecond(), z.cpuClient(), k.cpuClient(), z.cpuServer(), k.cpuServer()));
        }
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
