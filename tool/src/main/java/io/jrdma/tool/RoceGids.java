package io.jrdma.tool;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.GidEntry;
import io.jrdma.ibverbs.GidType;
import io.jrdma.ibverbs.RdmaException;

/**
 * Finding the GID a RoCE port is reached by over IPv4: the RoCE v2 GID that carries an IPv4 address
 * ({@code ::ffff:a.b.c.d}).
 *
 * {@snippet class=io.jrdma.tool.ToolSnippets region=ipv4-index}
 */
public final class RoceGids {
    private RoceGids() {
    }

    /**
     * Finds the port's IPv4 RoCE v2 GID, the one rdma_cm and perftest's {@code -x} pick on Soft-RoCE.
     *
     * @param ctx the device
     * @param port the port number, from 1
     * @return the GID index, or -1 if the port has none
     * @throws RdmaException if the port or its GID table cannot be queried
     */
    public static int ipv4Index(Context ctx, int port) throws RdmaException {
        int n = ctx.queryPort(port).gidTableLength();
        for (int i = 0; i < n; i++) {
            GidEntry e;
            try {
                e = ctx.queryGid(port, i);
            } catch (RdmaException unpopulated) {
                continue;
            }
            byte[] g = e.gid();
            if (e.type() == GidType.ROCE_V2 && g[10] == (byte) 0xff && g[11] == (byte) 0xff) {
                return i;
            }
        }
        return -1;
    }
}
