package io.jrdma.nativetest.cluster;

import io.jrdma.nativetest.Command;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Soft-RoCE's transport counters (sysfs {@code hw_counters} of rxe0's port 1: packets, duplicates, sequence errors,
 * retries), read with the same shell line on this node or on another.
 */
final class RxeCounters {
    /** A shell line that prints the counters as NAME:VALUE lines, on any node. */
    private static final String PRINT = "cd /sys/class/infiniband/rxe0/ports/1/hw_counters && grep -H . *";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private RxeCounters() {
    }

    /** This node's counters. */
    static Map<String, Long> local() throws IOException, InterruptedException {
        return parse(Command.run(Path.of("/"), List.of("sh", "-c", PRINT), TIMEOUT));
    }

    /** {@code node}'s counters. */
    static Map<String, Long> on(ClusterNode node) throws IOException {
        return parse(node.run(TIMEOUT, "sh", "-c", PRINT));
    }

    private static Map<String, Long> parse(String lines) {
        Map<String, Long> counters = new TreeMap<>();
        for (String line : lines.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                counters.put(line.substring(0, colon), Long.parseLong(line.substring(colon + 1).trim()));
            }
        }
        return counters;
    }

    /** What grew from {@code before} to {@code after}, counters that did not left out. */
    static Map<String, Long> growth(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> grown = new TreeMap<>();
        after.forEach((name, value) -> {
            long d = value - before.getOrDefault(name, 0L);
            if (d != 0) {
                grown.put(name, d);
            }
        });
        return grown;
    }

    /** The retransmissions that {@code grown} counts: retries after a timeout or a NAK, and the duplicates received. */
    static long retransmissions(Map<String, Long> grown) {
        return grown.getOrDefault("completer_retry_err", 0L) + grown.getOrDefault("rcvd_seq_err", 0L)
                + grown.getOrDefault("duplicate_request", 0L);
    }
}
