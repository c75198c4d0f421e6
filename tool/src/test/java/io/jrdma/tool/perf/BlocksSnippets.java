package io.jrdma.tool.perf;

import java.lang.foreign.MemorySegment;

/** The parts of jrdma blocks; compiled so that the Javadoc's examples match the code. */
final class BlocksSnippets {

    void mode() {
        // @start region="mode"
        BlocksMode m = BlocksMode.of("send");
        m.label();   // "send"
        // @end
    }

    void layout(MemorySegment mem, long dest, long seed) {
        // @start region="layout"
        BlockLayout l = new BlockLayout(4096, 16, 8192);
        l.fill(mem, 0, seed);                  // the source: blocks and gaps
        l.clear(mem, dest);                    // the destination: gap pattern only
        // ... move the blocks ...
        String wrong = l.check(mem, dest, seed);   // null when every byte is right
        // @end
    }

    void result(BlocksResult r) {
        // @start region="result"
        r.mbPerSecond();   // payload bytes a second over the timed run, in MB/s (2^20 bytes)
        // @end
    }

    void table(BlocksOptions options, BlocksResult result) {
        // @start region="table"
        BlocksTable table = new BlocksTable(options, "rxe0", System.out);
        table.banner("Ethernet", 1);
        table.add(result);
        table.finish();
        // @end
    }

    void session(BlocksOptions options, BlocksTable table) throws Exception {
        // @start region="session"
        try (PerfLink link = TcpPerfLink.open(options.link()); BlocksSession s = new BlocksSession(options, link, table)) {
            s.run();
        }
        // @end
    }
}
