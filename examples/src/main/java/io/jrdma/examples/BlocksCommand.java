package io.jrdma.examples;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code jrdma blocks [OPTIONS] [SERVER]}: the verbs course's non-contiguous assignment as a benchmark. Blocks laid
 * out with a stride move by the device's scatter/gather, one work request with an entry per block (zero-copy), and
 * through a contiguous buffer the CPU packs and unpacks (packed), in three modes: gather WRITE, scatter READ, gather
 * SEND into scatter RECV. It connects the way {@code jrdma perf} does ({@link TcpPerfLink}); without SERVER it waits
 * for a client. Both sides print the table (or {@code --json}).
 *
 * <pre>{@code
 * $ jrdma blocks -x 1 --block-size 4096 --blocks 16               # server
 * $ jrdma blocks -x 1 --block-size 4096 --blocks 16 10.0.2.15     # client
 * }</pre>
 */
final class BlocksCommand {
    private final PrintStream out;

    BlocksCommand(PrintStream out) {
        this.out = out;
    }

    int run(List<String> args) throws Exception {
        if (args.stream().anyMatch(a -> a.equals("-h") || a.equals("--help"))) {
            out.println(BlocksOptions.usage());
            return 0;
        }
        BlocksOptions options = BlocksOptions.parse(args);
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
}
