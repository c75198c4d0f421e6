package io.jrdma.nativetest.support;

import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.GidEntry;
import io.jrdma.ibverbs.GidType;
import io.jrdma.ibverbs.LinkLayer;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;

import java.io.IOException;
import java.net.InetAddress;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What device tests share: picking the GID, waiting for completions with a deadline, and a checked send. */
public final class DeviceSupport {
    private DeviceSupport() {
    }

    /**
     * One connected side's queue pair, the queue of its completions and a region of at least 64 bytes, in their
     * protection domain; closing closes them all.
     */
    public interface QpSide extends AutoCloseable {
        ProtectionDomain pd();

        QueuePair qp();

        CompletionQueue cq();

        MemoryRegion mr();

        @Override
        default void close() throws Exception {
            mr().close();
            qp().close();
            cq().close();
            pd().close();
        }
    }

    /**
     * Sends {@code text} from the start of {@code from}'s region into {@code to}'s, both completing successfully, and
     * returns what arrived.
     */
    public static String sendText(QpSide from, QpSide to, String text) throws IOException {
        to.mr().segment().fill((byte) 0);
        to.qp().postReceive(new ReceiveWorkRequest(1).id(1).add(to.mr(), 0, 64));
        from.mr().segment().setString(0, text);
        from.qp().postSend(new SendWorkRequest(1).id(2).opcode(SendOpcode.SEND).signaled(true)
                .add(from.mr(), 0, 64));
        assertEquals(WcStatus.SUCCESS, awaitCompletion(from.cq()).status(0));
        assertEquals(WcStatus.SUCCESS, awaitCompletion(to.cq()).status(0));
        return to.mr().segment().getString(0);
    }

    /**
     * The GID index to connect with on port 1: the first RoCE v2 GID carrying an IPv4 address (::ffff:a.b.c.d) on
     * Ethernet, -1 (LID routing) on InfiniBand.
     */
    public static int gidIndex(Context ctx) throws IOException {
        if (ctx.queryPort(1).linkLayer() != LinkLayer.ETHERNET) {
            return -1;
        }
        int n = ctx.queryPort(1).gidTableLength();
        for (int i = 0; i < n; i++) {
            try {
                GidEntry e = ctx.queryGid(1, i);
                byte[] g = e.gid();
                if (e.type() == GidType.ROCE_V2 && g[10] == (byte) 0xff && g[11] == (byte) 0xff) {
                    return i;
                }
            } catch (RdmaException unpopulated) {
                // the table is sparse
            }
        }
        throw new IOException("no IPv4 RoCE v2 GID on " + ctx.device().name());
    }

    /**
     * The IPv4 address of the device's network interface, for the connection manager: the {@code jrdma.test.address}
     * system property if set, else the address inside the device's IPv4 RoCE v2 GID.
     */
    public static InetAddress ipAddress(Context ctx) throws IOException {
        String configured = System.getProperty("jrdma.test.address");
        if (configured != null) {
            return InetAddress.getByName(configured);
        }
        int index = gidIndex(ctx);
        if (index < 0) {
            throw new IOException(ctx.device().name() + " is InfiniBand: set -Djrdma.test.address to its IPoIB address");
        }
        return InetAddress.getByAddress(Arrays.copyOfRange(ctx.queryGid(1, index).gid(), 12, 16));
    }

    /** Polls {@code cq} for its next completion, or fails after 10 s; returns it alone in a fresh array. */
    public static WorkCompletions awaitCompletion(CompletionQueue cq) throws IOException {
        WorkCompletions one = new WorkCompletions(1);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cq.poll(one) == 0) {
            if (System.nanoTime() > deadline) {
                throw new IOException("no completion within 10 s on " + cq);
            }
            Thread.onSpinWait();
        }
        return one;
    }
}
