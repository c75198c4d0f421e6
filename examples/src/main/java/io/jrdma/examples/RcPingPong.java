package io.jrdma.examples;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.ConnectOptions;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.GidType;
import io.jrdma.ibverbs.LinkLayer;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Two reliable-connection queue pairs on one device, connected to each other by hand, play ping-pong with SENDs:
 * each message goes from {@code a} to {@code b} and back, and every byte is checked on arrival. Two hosts would do
 * the same, exchanging their endpoints (LID, QPN, PSN, GID) over a socket.
 *
 * <p>Argument: the device (default the first one).
 */
public final class RcPingPong {
    private static final int PORT = 1;
    private static final int SIZE = 4096;
    private static final int ROUNDS = 100;

    private RcPingPong() {
    }

    public static void main(String[] args) throws Exception {
        try (Context ctx = args.length > 0 ? Context.open(args[0]) : Context.openFirst();
             ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cq = ctx.createCompletionQueue(16);
             QueuePair a = pd.queuePair(QpType.RC).completionQueue(cq).capacity(2, 2).create();
             QueuePair b = pd.queuePair(QpType.RC).completionQueue(cq).capacity(2, 2).create();
             // a's message at 0, b's receive buffer at SIZE: b sends the message back from there into a's at 2 SIZE.
             MemoryRegion mr = pd.allocate(3L * SIZE, Access.LOCAL_WRITE)) {
            int gid = gidIndex(ctx);
            ConnectOptions options = ConnectOptions.of(PORT, gid, ctx.queryPort(PORT).activeMtu());
            a.connect(b.endpoint(PORT, gid, 0x200), 0x100, options);
            b.connect(a.endpoint(PORT, gid, 0x100), 0x200, options);

            MemorySegment buffer = mr.segment();
            SendWorkRequest send = new SendWorkRequest(1);
            ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
            WorkCompletions wc = new WorkCompletions(2);
            long start = System.nanoTime();
            for (int round = 0; round < ROUNDS; round++) {
                for (int i = 0; i < SIZE; i++) {
                    buffer.set(ValueLayout.JAVA_BYTE, i, (byte) (round + i));
                }
                b.postReceive(receive.reset().id(1).add(mr, SIZE, SIZE));
                a.postReceive(receive.reset().id(2).add(mr, 2L * SIZE, SIZE));
                a.postSend(send.reset().id(3).opcode(SendOpcode.SEND).signaled(true).add(mr, 0, SIZE));
                await(cq, wc, 2);   // a's send and b's receive
                b.postSend(send.reset().id(4).opcode(SendOpcode.SEND).signaled(true).add(mr, SIZE, SIZE));
                await(cq, wc, 2);   // b's send and a's receive
                long mismatch = buffer.asSlice(0, SIZE).mismatch(buffer.asSlice(2L * SIZE, SIZE));
                if (mismatch >= 0) {
                    throw new IllegalStateException("round " + round + ": byte " + mismatch + " came back changed");
                }
            }
            System.out.printf("%d round trips of %d bytes on %s, every byte checked: %.1f us each%n", ROUNDS, SIZE,
                    ctx.device().name(), (System.nanoTime() - start) / 1e3 / ROUNDS);
        }
    }

    /** Busy-polls until {@code count} completions have arrived, each a success. */
    private static void await(CompletionQueue cq, WorkCompletions wc, int count) throws RdmaException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (int done = 0; done < count; ) {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                if (wc.status(i) != WcStatus.SUCCESS) {
                    throw new IllegalStateException("work request " + wc.id(i) + ": " + wc.status(i).description());
                }
            }
            done += n;
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no completion within 10 s");
            }
        }
    }

    /** On RoCE a GID addresses the port: the first RoCE v2 one. InfiniBand routes by LID alone (-1). */
    private static int gidIndex(Context ctx) throws RdmaException {
        if (ctx.queryPort(PORT).linkLayer() != LinkLayer.ETHERNET) {
            return -1;
        }
        for (int i = 0; i < ctx.queryPort(PORT).gidTableLength(); i++) {
            try {
                if (ctx.queryGid(PORT, i).type() == GidType.ROCE_V2) {
                    return i;
                }
            } catch (RdmaException unpopulated) {
                // an empty slot of the table
            }
        }
        throw new IllegalStateException(ctx.device().name() + " has no RoCE v2 GID on port " + PORT);
    }
}
