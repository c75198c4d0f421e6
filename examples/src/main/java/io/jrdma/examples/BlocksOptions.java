package io.jrdma.examples;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The command line of {@code jrdma blocks}: the layout, the modes, the counts and how to connect, checked up front.
 * The device's limit on blocks ({@link #checkDevice}) is checked once the device is open, before anything is created
 * on it.
 *
 * <pre>{@code
 * BlocksOptions o = BlocksOptions.parse(List.of("--block-size", "4096", "--blocks", "4,16", "10.0.2.15"));
 * o.layouts();   // [4 blocks of 4096 B, stride 8192 B, 16 blocks of 4096 B, stride 8192 B]
 * }</pre>
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

    static final int DEFAULT_BLOCK_SIZE = 4096;
    static final int DEFAULT_BLOCKS = 16;
    static final int DEFAULT_ITERATIONS = 1000;
    /** Enough calls of the message loop, summed over the six runs, for HotSpot's optimizing tier (5000 calls). */
    static final int DEFAULT_WARMUP = 2000;
    /** The most blocks the command line takes; the device's max_sge limits them further. */
    static final int MAX_BLOCKS = 1024;
    private static final String CMD = "blocks";

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
        return CMD + " " + layouts + " modes=" + modes + " n=" + iterations + " warmup=" + warmup;
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
                throw new IllegalArgumentException(String.format(Locale.ROOT, "%s: --blocks %d is more than %s "
                        + "takes in one %s work request (%s %d): give at most %d blocks", CMD, blocks, name,
                        m.label(), m == BlocksMode.READ ? "max_sge_rd" : "max_sge", max, max));
            }
        }
    }

    /**
     * Parses {@code args}: options, then at most one server.
     *
     * @throws IllegalArgumentException for an unknown option, a missing or out-of-range value, a bad layout
     */
    static BlocksOptions parse(List<String> args) {
        List<Integer> blockSizes = List.of(DEFAULT_BLOCK_SIZE);
        List<Integer> blockCounts = List.of(DEFAULT_BLOCKS);
        Integer stride = null;
        Set<BlocksMode> modes = new LinkedHashSet<>();
        int iterations = DEFAULT_ITERATIONS;
        int warmup = DEFAULT_WARMUP;
        String device = null;
        int ibPort = 1;
        Integer gid = null;
        int tcpPort = 18515;
        boolean json = false;
        List<String> operands = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                value = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            if (valued(a) && value == null) {
                value = Args.value(CMD, args, i++);
            }
            switch (a) {
                case "--block-size" -> blockSizes = numbers(a, value, (int) BlockLayout.MAX_SPAN);
                case "--blocks" -> blockCounts = numbers(a, value, MAX_BLOCKS);
                case "--stride" -> stride = Args.number(CMD, a, value, 1, (int) BlockLayout.MAX_SPAN);
                case "-m", "--mode" -> {
                    for (String m : value.split(",", -1)) {
                        if (!modes.add(BlocksMode.of(m.strip()))) {
                            throw new IllegalArgumentException(CMD + ": --mode names " + m.strip() + " twice");
                        }
                    }
                }
                case "-n", "--iters" -> iterations = Args.number(CMD, a, value, LatencyStatistics.TAIL + 3,
                        100_000_000);
                case "--warmup" -> warmup = Args.number(CMD, a, value, 0, PerfOptions.MAX_WARMUP);
                case "-d", "--ib-dev" -> device = value;
                case "-i", "--ib-port" -> ibPort = Args.number(CMD, a, value, 1, 255);
                case "-x", "--gid-index" -> gid = Args.number(CMD, a, value, 0, 255);
                case "-p", "--port" -> tcpPort = Args.number(CMD, a, value, 1, 65535);
                case "--json" -> json = true;
                default -> {
                    if (a.startsWith("-") && a.length() > 1) {
                        throw new IllegalArgumentException(CMD + ": unknown option '" + args.get(i) + "'");
                    }
                    operands.add(a);
                }
            }
        }
        if (operands.size() > 1) {
            throw new IllegalArgumentException(CMD + ": one server at most, not " + operands);
        }
        List<BlockLayout> layouts = new ArrayList<>();
        for (int blockSize : blockSizes) {
            long strideBytes = stride != null ? stride : 2L * blockSize;
            if (strideBytes > BlockLayout.MAX_SPAN) {
                throw new IllegalArgumentException(CMD + ": the default stride, twice --block-size " + blockSize
                        + ", is more than 1 GiB: give --stride");
            }
            for (int blocks : blockCounts) {
                layouts.add(new BlockLayout(blockSize, blocks, (int) strideBytes));
            }
        }
        return new BlocksOptions(List.copyOf(layouts), modes.isEmpty() ? List.of(BlocksMode.values()) : List.copyOf(modes),
                iterations, warmup, device, ibPort, gid, tcpPort, json, operands.isEmpty() ? null : operands.getFirst());
    }

    /** A comma-separated list of numbers from 1 to {@code max}, each once. */
    private static List<Integer> numbers(String option, String value, int max) {
        List<Integer> list = new ArrayList<>();
        for (String v : value.split(",", -1)) {
            int n = Args.number(CMD, option, v.strip(), 1, max);
            if (list.contains(n)) {
                throw new IllegalArgumentException(CMD + ": " + option + " names " + n + " twice");
            }
            list.add(n);
        }
        return List.copyOf(list);
    }

    private static boolean valued(String option) {
        return switch (option) {
            case "--block-size", "--blocks", "--stride", "-m", "--mode", "-n", "--iters", "--warmup", "-d",
                 "--ib-dev", "-i", "--ib-port", "-x", "--gid-index", "-p", "--port" -> true;
            default -> false;
        };
    }

    static String usage() {
        return String.join("\n",
                "usage: jrdma blocks [OPTIONS]          start a server and wait for a client",
                "       jrdma blocks [OPTIONS] SERVER   connect to the server at SERVER",
                "  Moves blocks laid out with a stride, the verbs course's non-contiguous assignment, in three modes,",
                "  each two ways: zero-copy, one work request with a scatter/gather entry per block, and packed, the",
                "  CPU copying the blocks through a contiguous staging buffer (one entry) and back. One message is in",
                "  flight; after the timed ones the destination is checked byte by byte, gaps included.",
                "    write  gather WRITE: the client's strided blocks into the server's contiguous buffer",
                "    read   scatter READ: the server's contiguous buffer into the client's strided blocks",
                "    send   gather SEND into scatter RECV: the client's strided blocks into the server's (the server",
                "           acknowledges each message once its blocks are in place)",
                "      --block-size=<list>  bytes per block, comma-separated for several (default " + DEFAULT_BLOCK_SIZE
                        + ")",
                "      --blocks=<list>      blocks per message, at most the device's max_sge; comma-separated for",
                "                           several: every block size runs with every count (default " + DEFAULT_BLOCKS
                        + ")",
                "      --stride=<bytes>     from one block's start to the next one's, at least the block size "
                        + "(default 2 x the block size)",
                "  -m, --mode=<list>        modes to run, comma-separated: write,read,send (default all)",
                "  -n, --iters=<n>          timed messages per layout, mode and variant (default " + DEFAULT_ITERATIONS
                        + ")",
                "      --warmup=<n>         untimed messages per layout, mode and variant first (default "
                        + DEFAULT_WARMUP
                        + "; 0: none)",
                "  -d, --ib-dev=<dev>       use IB device <dev> (default first device found)",
                "  -i, --ib-port=<port>     use port <port> of the device (default 1)",
                "  -x, --gid-index=<index>  GID index (default on RoCE: the port's IPv4 RoCE v2 GID)",
                "  -p, --port=<port>        listen on/connect to TCP port <port> (default 18515)",
                "      --json               print the results as one JSON document instead of the table",
                "  Both sides must run the same layouts, modes, -n and --warmup.");
    }
}
