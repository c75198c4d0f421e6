package io.jrdma.nativetest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Soft-RoCE's transport counters (sysfs {@code hw_counters} of rxe0's port 1: packets, duplicates, sequence errors,
 * retries), read on this node or, through the same shell line, on another.
 */
final class RxeCounters {
    /** A shell line that prints the counters as NAME:VALUE lines, on any node. */
    static final String PRINT = "cd /sys/class/infiniband/rxe0/ports/1/hw_counters && grep -H . *";

    private RxeCounters() {
    }

    /** This node's counters. */
    static Map<String, Long> local() throws IOException {
        Map<String, Long> counters = new TreeMap<>();
        try (Stream<Path> files = Files.list(Path.of("/sys/class/infiniband/rxe0/ports/1/hw_counters"))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                counters.put(f.getFileName().toString(), Long.parseLong(Files.readString(f).trim()));
            }
        }
        return counters;
    }

    /** {@code node}'s counters. */
    static Map<String, Long> on(ClusterNode node) throws IOException {
        Map<String, Long> counters = new TreeMap<>();
        for (String line : node.run(Duration.ofSeconds(30), "sh", "-c", PRINT).split("\n")) {
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
}
