package io.jrdma.tool.perf;

import java.util.List;
import java.util.Locale;

/**
 * The options of {@code jrdma blocks}: the layouts, the modes, the counts and how to connect, as
 * {@link BlocksCommand} checked them. The device's limit on blocks ({@link #checkDevice}) is checked once the device
 * is open, before anything is created on it.
 *
 * @param layouts    the layouts, every block size with every block count (--block-size, --blocks, --stride)
 * @param modes      the modes to run, in this order (--mode)
 * @param iterations timed messages per layout, mode and variant (-n)
 * @param warmup     untimed messages per layout, mode and variant before the timed ones (--warmup)
 * @param device     device name (-d), or {@code null} for the first device
 * @param ibPort     device port (-i)
 * @param gidIndex   GID index (-x), or {@code null} to pick the port's IPv4 RoCE GID on Ethernet
 * @param tcpPort    TCP port of the exchange (-p)
 * @param json       print one JSON document instead of the table (--json)
 * @param server     the server to connect to, or {@code null} to be the server
 */
record BlocksOptions(List<BlockLayout> layouts, List<BlocksMode> modes, int iterations, int warmup, String device,
                     int ibPort, Integer gidIndex, int tcpPort, boolean json, String server) {

    /** The most blocks of any layout. */
    int maxBlocks() {
        return layouts.stream().mapToInt(BlockLayout::blocks).max().orElseThrow();
    }

    /** The largest extent of any layout ({@link BlockLayout#extent()}). */
    long maxExtent() {
        return layouts.stream().mapToLong(BlockLayout::extent).max().orElseThrow();
    }

    /** Whether this side is the client. */
    boolean client() {
        return server != null;
    }

    /** What both sides must agree on; the exchange refuses a peer that differs. */
    String setup() {
        return "blocks " + layouts + " modes=" + modes + " n=" + iterations + " warmup=" + warmup;
    }

    /** The options of a {@code jrdma perf} link to the same peer: the connection is made the way perf makes it. */
    PerfOptions link() {
        return PerfOptions.link(device, ibPort, gidIndex, tcpPort, server);
    }

    /**
     * Refuses a layout the device cannot move in one work request: more blocks than {@code maxSge} scatter/gather
     * entries (SEND, RECV, WRITE) or {@code maxSgeRd} (READ).
     *
     * @throws IllegalArgumentException naming the limit and the device
     */
    void checkDevice(String name, int maxSge, int maxSgeRd) {
        int blocks = maxBlocks();
        for (BlocksMode m : modes) {
            int max = m == BlocksMode.READ ? maxSgeRd : maxSge;
            if (blocks > max) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "--blocks %d is more than %s "
                        + "takes in one %s work request (%s %d): give at most %d blocks", blocks, name,
                        m.label(), m == BlocksMode.READ ? "max_sge_rd" : "max_sge", max, max));
            }
        }
    }
}
