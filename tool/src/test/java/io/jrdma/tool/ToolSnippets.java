package io.jrdma.tool;

import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.GidEntry;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;

/** The tool's helpers: GIDs, closing, latencies; compiled so that the Javadoc's examples match the code. */
final class ToolSnippets {

    void gidFormat(GidEntry entry) {
        // @start region="format"
        GidFormat.format(entry.gid());   // "::ffff:10.0.2.15" or "fe80::5054:ff:fe12:3456"
        // @end
    }

    void closeAll(QueuePair qp, MemoryRegion mr, CompletionQueue cq, ProtectionDomain pd) throws Exception {
        // @start region="close-all"
        Resources.closeAll(qp, mr, cq, pd);   // children before parents
        // @end
    }

    void latencies(long[] nanos) {
        // @start region="latencies"
        System.out.println("round trip " + Latencies.of(nanos));   // "median 41.2 us, p99 80.3 us, max 95.0 us"
        // @end
    }

    void ipv4Index(Context ctx) throws RdmaException {
        // @start region="ipv4-index"
        int gid = RoceGids.ipv4Index(ctx, 1);   // -1 if the port has none (e.g. InfiniBand)
        // @end
    }
}
