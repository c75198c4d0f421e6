package io.jrdma.tool.perf;

import io.jrdma.tool.ToolCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code jrdma blocks [OPTIONS] [SERVER]}: the verbs course's non-contiguous assignment as a benchmark. Blocks laid
 * out with a stride move by the device's scatter/gather, one work request with an entry per block (zero-copy), and
 * through a contiguous buffer the CPU packs and unpacks (packed), in three modes: gather WRITE, scatter READ, gather
 * SEND into scatter RECV. It connects the way {@code jrdma perf} does ({@link TcpPerfLink}); without SERVER it waits
 * for a client. Both sides print the table (or {@code --json}).
 *
 * {@snippet lang=shell :
 * $ jrdma blocks -x 1 --block-size 4096 --blocks 16               # server
 * $ jrdma blocks -x 1 --block-size 4096 --blocks 16 10.0.2.15     # client
 * }
 */
@Command(name = "blocks", sortOptions = false,
        description = {"Strided blocks moved by scatter/gather (gather WRITE, scatter READ, gather SEND into scatter "
                + "RECV) against CPU packing: time, bandwidth and CPU per message, every byte checked.",
                "Moves blocks laid out with a stride, the verbs course's non-contiguous assignment, in three "
                + "modes, each two ways: zero-copy, one work request with a scatter/gather entry per block, and "
                + "packed, the CPU copying the blocks through a contiguous staging buffer (one entry) and back. One "
                + "message is in flight; after the timed ones the destination is checked byte by byte, gaps included.",
                "  write  gather WRITE: the client's strided blocks into the server's contiguous buffer",
                "  read   scatter READ: the server's contiguous buffer into the client's strided blocks",
                "  send   gather SEND into scatter RECV: the client's strided blocks into the server's (the server "
                        + "acknowledges each message once its blocks are in place)",
                "Without SERVER, start a server and wait for a client."},
        footer = "Both sides must run the same layouts, modes, -n and --warmup.")
public final class BlocksCommand extends ToolCommand {
    private static final int DEFAULT_BLOCK_SIZE = 4096;
    private static final int DEFAULT_BLOCKS = 16;
    static final int DEFAULT_ITERATIONS = 1000;
    /** Enough calls of the message loop, summed over the six runs, for HotSpot's optimizing tier (5000 calls). */
    static final int DEFAULT_WARMUP = 2000;
    /** The most blocks the command line takes; the device's max_sge limits them further. */
    static final int MAX_BLOCKS = 1024;

    @Option(names = "--block-size", paramLabel = "<list>",
            description = "bytes per block, comma-separated for several (default ${DEFAULT-VALUE})")
    private String blockSizes = Integer.toString(DEFAULT_BLOCK_SIZE);

    @Option(names = "--blocks", paramLabel = "<list>", description = "blocks per message, at most the device's "
            + "max_sge; comma-separated for several: every block size runs with every count (default ${DEFAULT-VALUE})")
    private String blockCounts = Integer.toString(DEFAULT_BLOCKS);

    @Option(names = "--stride", paramLabel = "<bytes>", description = "from one block's start to the next one's, at "
            + "least the block size (default 2 x the block size)")
    private Integer stride;

    @Option(names = {"-m", "--mode"}, paramLabel = "<list>",
            description = "modes to run, comma-separated: write,read,send (default all)")
    private String modes;

    @Option(names = {"-n", "--iters"}, paramLabel = "<n>",
            description = "timed messages per layout, mode and variant (default ${DEFAULT-VALUE})")
    private int iterations = DEFAULT_ITERATIONS;

    @Option(names = "--warmup", paramLabel = "<n>",
            description = "untimed messages per layout, mode and variant first (default ${DEFAULT-VALUE}; 0: none)")
    private int warmup = DEFAULT_WARMUP;

    @Mixin
    private LinkOptions connection;

    @Option(names = "--json", description = "print the results as one JSON document instead of the table")
    private boolean json;

    @Parameters(paramLabel = "[SERVER]", hideParamSyntax = true, description = "the server to connect to")
    private List<String> servers = new ArrayList<>();

    /** The command, printing to {@code out} and {@code err}. */
    public BlocksCommand(PrintStream out, PrintStream err) {
        super(out, err);
    }

    @Override
    public Integer call() throws Exception {
        BlocksOptions options = options();
        try (PerfLink link = TcpPerfLink.open(options.link())) {
            BlocksTable table = new BlocksTable(options, link.context().device().name(), out);
            try (BlocksSession session = new BlocksSession(options, link, table)) {
                table.banner(link.linkType(), link.gidIndex());
                session.run();
            }
            table.finish();
        }
        return 0;
    }

    /** The options, checked: every layout is valid, each mode named once. */
    BlocksOptions options() {
        if (servers.size() > 1) {
            throw usage("one server at most, not " + servers);
        }
        List<Integer> sizes = numbers("--block-size", blockSizes, (int) BlockLayout.MAX_SPAN);
        List<Integer> counts = numbers("--blocks", blockCounts, MAX_BLOCKS);
        if (stride != null) {
            check("--stride", stride, 1, (int) BlockLayout.MAX_SPAN);
        }
        List<BlocksMode> modeList = modes();
        check("-n", iterations, LatencyStatistics.TAIL + 3, 100_000_000);
        check("--warmup", warmup, 0, PerfOptions.MAX_WARMUP);
        connection.check(this);
        return new BlocksOptions(layouts(sizes, counts), modeList, iterations, warmup, connection.device,
                connection.ibPort, connection.gidIndex, connection.tcpPort, json,
                servers.isEmpty() ? null : servers.getFirst());
    }

    private List<BlockLayout> layouts(List<Integer> sizes, List<Integer> counts) {
        List<BlockLayout> layouts = new ArrayList<>();
        for (int blockSize : sizes) {
            long strideBytes = stride != null ? stride : 2L * blockSize;
            if (strideBytes > BlockLayout.MAX_SPAN) {
                throw usage("the default stride, twice --block-size " + blockSize
                        + ", is more than 1 GiB: give --stride");
            }
            for (int blocks : counts) {
                try {
                    layouts.add(new BlockLayout(blockSize, blocks, (int) strideBytes));
                } catch (IllegalArgumentException e) {
                    throw usage(e.getMessage());
                }
            }
        }
        return List.copyOf(layouts);
    }

    private List<BlocksMode> modes() {
        if (modes == null) {
            return List.of(BlocksMode.values());
        }
        Set<BlocksMode> chosen = new LinkedHashSet<>();
        for (String m : modes.split(",", -1)) {
            BlocksMode mode;
            try {
                mode = BlocksMode.of(m.strip());
            } catch (IllegalArgumentException e) {
                throw usage(e.getMessage());
            }
            if (!chosen.add(mode)) {
                throw usage("--mode names " + m.strip() + " twice");
            }
        }
        return List.copyOf(chosen);
    }

    /** A comma-separated list of numbers from 1 to {@code max}, each once. */
    private List<Integer> numbers(String option, String value, int max) {
        List<Integer> list = new ArrayList<>();
        for (String v : value.split(",", -1)) {
            int n = parse(option, v.strip(), 1, max);
            if (list.contains(n)) {
                throw usage(option + " names " + n + " twice");
            }
            list.add(n);
        }
        return List.copyOf(list);
    }
}
