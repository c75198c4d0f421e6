package io.jrdma.tool.perf;

import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * What the two sides of {@code jrdma perf} tell each other besides the test's own traffic: the exchange of queue pair
 * and buffer (over the link: TCP or the CM), then, through RDMA writes into each other's control area, the barriers
 * around each size, the stop count of a timed run (-D), and the client's bandwidth results for the server to print.
 *
 * <p>The control area ({@link PerfResources#control()}) holds at {@code BARRIER} the peer's last barrier generation,
 * at {@code STOP} its stop count plus one (0: still running), at {@code RESULTS} its results; this side stages what it
 * writes into the peer's area at the same offsets from {@code OUTBOX}. Control writes complete on the send queue,
 * which the data path has drained by then.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=control}
 */
final class PerfControl {
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = BE_LONG.varHandle();
    private static final long CONTROL_ID = -1;
    private static final long PROBE_ID = -2;
    /** How long a side waits at a barrier before checking that the peer is still there. */
    private static final long PROBE_INTERVAL_NANOS = 1_000_000_000L;
    private static final int BARRIER = 0;
    private static final int STOP = 8;
    private static final int RESULTS = 16;
    private static final int RESULTS_BYTES = 32;
    private static final int OUTBOX = 64;
    private static final int SPINS_BEFORE_PARKING = 10_000;

    private final PerfLink link;
    private final QueuePair qp;
    private final CompletionQueue sendCq;
    private final MemoryRegion mr;
    private final MemorySegment mem;
    private final long control;
    private final SendWorkRequest controlWrite = new SendWorkRequest(1);
    private final SendWorkRequest probe = new SendWorkRequest(0);
    private final WorkCompletions one = new WorkCompletions(1);

    private long remoteBase;
    private int rkey;
    private long generation;

    PerfControl(PerfLink link, PerfResources resources) {
        this.link = link;
        this.qp = resources.qp();
        this.sendCq = resources.sendCq();
        this.mr = resources.mr();
        this.mem = mr.segment();
        this.control = resources.control();
    }

    /**
     * Exchanges queue pair and buffer with the peer, which must run the same {@code setup}, and connects the queue
     * pair; returns what the peer told.
     */
    PerfPeer connect(String setup) throws Exception {
        PerfPeer peer = link.connect(qp, new PerfPeer(setup.hashCode(), mr.address(), mr.remoteKey(), null));
        remoteBase = peer.address();
        rkey = peer.rkey();
        return peer;
    }

    /** Forgets the peer's stop count of the last run; the peer cannot write the next before the next barrier. */
    void clearStop() {
        mem.set(BE_LONG, control + STOP, 0);
    }

    /** The peer's count in duration mode once it has stopped, else -1. */
    long stopCount() {
        return (long) LONG.getVolatile(mem, control + STOP) - 1;
    }

    /** Tells the peer this side stopped a timed run after {@code count} messages. */
    void writeStop(long count) throws RdmaException {
        mem.set(BE_LONG, control + OUTBOX + STOP, count + 1);
        writeControl(STOP, 8);
    }

    /** Tells the server the client's bandwidth results. */
    void sendResults(PerfResult r) throws RdmaException {
        BandwidthStatistics b = r.bandwidth();
        long at = control + OUTBOX + RESULTS;
        mem.set(BE_LONG, at, Double.doubleToRawLongBits(b.peakBytesPerSecond()));
        mem.set(BE_LONG, at + 8, Double.doubleToRawLongBits(b.averageBytesPerSecond()));
        mem.set(BE_LONG, at + 16, Double.doubleToRawLongBits(b.messagesPerSecond()));
        mem.set(BE_LONG, at + 24, r.iterations());
        writeControl(RESULTS, RESULTS_BYTES);
    }

    /** The client's bandwidth results of {@code size}, once past the barrier after its run. */
    PerfResult receivedResults(int size) {
        long at = control + RESULTS;
        return PerfResult.bandwidth(size, mem.get(BE_LONG, at + 24), new BandwidthStatistics(
                Double.longBitsToDouble(mem.get(BE_LONG, at)), Double.longBitsToDouble(mem.get(BE_LONG, at + 8)),
                Double.longBitsToDouble(mem.get(BE_LONG, at + 16))));
    }

    /**
     * Both sides reach the same point: over the link when it can wait asleep (perftest's TCP handshake; a peer that
     * died closes the socket), else each writes its next generation into the other's control area and waits for the
     * other's. After the last one the peer may tear down at once, so an error on this side's own write no longer
     * matters once the peer's generation is here. While it waits, this side probes the peer with an empty write now
     * and then: a peer that died never writes its generation, but the probe then fails (retries exceeded) and the
     * barrier ends in an error instead of waiting forever.
     */
    void barrier(boolean last) throws Exception {
        if (link.sync()) {
            return;
        }
        generation++;
        mem.set(BE_LONG, control + OUTBOX + BARRIER, generation);
        postControl(BARRIER, 8);
        boolean written = false;
        boolean seen = false;
        boolean probing = false;
        long lastProbe = System.nanoTime();
        for (long spins = 0; !(written && seen && !probing); spins++) {
            if (sendCq.poll(one) == 1) {
                if (one.status(0) == WcStatus.SUCCESS) {
                    written |= one.id(0) == CONTROL_ID;
                    probing &= one.id(0) != PROBE_ID;
                } else if (last && seen) {
                    written = true;
                    probing = false;
                } else {
                    throw peerLost(one);
                }
            }
            seen = seen || (long) LONG.getVolatile(mem, control + BARRIER) >= generation;
            if (written && !seen && !probing && System.nanoTime() - lastProbe > PROBE_INTERVAL_NANOS) {
                probe.reset().id(PROBE_ID).opcode(SendOpcode.RDMA_WRITE).signaled(true).rdma(remoteBase, rkey);
                qp.postSend(probe);
                probing = true;
                lastProbe = System.nanoTime();
            }
            idle(spins);
        }
    }

    /** Throws if completion {@code i} of {@code wc} failed. */
    static void check(WorkCompletions wc, int i) {
        if (wc.status(i) != WcStatus.SUCCESS) {
            throw failure(wc, i);
        }
    }

    private static IllegalStateException failure(WorkCompletions wc, int i) {
        return new IllegalStateException(String.format(Locale.ROOT, "perf: completion failed: %s (status %d, "
                + "vendor error 0x%x, wr_id %d)", wc.status(i).description(), wc.status(i).value(),
                wc.vendorError(i), wc.id(i)));
    }

    private static IllegalStateException peerLost(WorkCompletions wc) {
        if (wc.status(0) == WcStatus.RETRY_EXC_ERR || wc.status(0) == WcStatus.WR_FLUSH_ERR) {
            return new IllegalStateException(String.format(Locale.ROOT, "perf: the peer stopped answering while "
                    + "this side waited for it (%s): did it exit or die?", wc.status(0).description()));
        }
        return failure(wc, 0);
    }

    private void writeControl(int offset, int length) throws RdmaException {
        postControl(offset, length);
        for (long spins = 0; ; spins++) {
            if (sendCq.poll(one) == 1) {
                check(one, 0);
                if (one.id(0) == CONTROL_ID) {
                    return;
                }
            }
            idle(spins);
        }
    }

    private void postControl(int offset, int length) throws RdmaException {
        controlWrite.reset().id(CONTROL_ID).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                .rdma(remoteBase + control + offset, rkey).add(mr, control + OUTBOX + offset, length);
        qp.postSend(controlWrite);
    }

    /** Outside the timed loops a waiting side yields its core: the peer may be measuring on a neighbour. */
    private static void idle(long spins) {
        if (spins < SPINS_BEFORE_PARKING) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(50_000);
        }
    }
}
