package io.jrdma.tool.perf;

import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WorkCompletions;

import java.lang.foreign.MemorySegment;

/**
 * The data path of one kind of {@code jrdma perf} test, and what the three kinds share: the verbs objects, the
 * reusable work requests and completion arrays, and the time stamps. {@link PerfSession} runs it size by size.
 *
 * <p>Each kind's measured loop is whole in its own class, and what it calls here is final, so that the JIT binds
 * and inlines it as it did when the three were one class.
 */
abstract sealed class PerfLoop permits PingPongLoop, OneSidedLoop, StreamLoop {
    static final long DATA_ID = 1;

    final PerfOptions options;
    final PerfTest test;
    final boolean client;
    final PerfControl control;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QueuePair qp;
    final MemoryRegion mr;
    final MemorySegment mem;
    /** The size of the source and of the target area; the target area starts here. */
    final int area;
    final int maxInline;

    final SendWorkRequest data = new SendWorkRequest(1);
    final ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
    final WorkCompletions one = new WorkCompletions(1);
    final WorkCompletions batch = new WorkCompletions(16);
    final long[] stamps;
    final long[] completedAt;

    long remoteBase;
    int rkey;
    /** When the last measured run's loop ended: before its statistics, which are no part of the run for a profiler. */
    long loopEnd;

    PerfLoop(PerfOptions options, PerfResources resources, PerfControl control, int area) {
        this.options = options;
        this.test = options.test();
        this.client = options.client();
        this.control = control;
        this.area = area;
        boolean perMessage = test.latency() || !options.noPeak();
        // The warm-up runs by count (never by time) and stamps like a measured run, which it is, untimed.
        int stamped = perMessage ? Math.max(1, options.mostIterations()) : 1;
        this.stamps = new long[stamped];
        this.completedAt = new long[perMessage && !test.latency() ? stamped : 1];
        sendCq = resources.sendCq();
        recvCq = resources.recvCq();
        qp = resources.qp();
        mr = resources.mr();
        mem = mr.segment();
        maxInline = Math.min(options.inlineSize(), qp.capabilities().maxInlineData());
        receive.id(DATA_ID).add(mr, area, area);
    }

    /** The data path of the options' test, on the session's resources. */
    static PerfLoop of(PerfOptions options, PerfResources resources, PerfControl control, int area) {
        PerfTest test = options.test();
        if (!test.latency()) {
            return new StreamLoop(options, resources, control, area);
        }
        return test.serverActive() ? new PingPongLoop(options, resources, control, area)
                : new OneSidedLoop(options, resources, control, area);
    }

    /** Receives kept posted for the test, and the receive queue's capacity: SEND tests take the peer's messages. */
    static int rxDepth(PerfTest test) {
        if (test.verb() != PerfTest.Verb.SEND) {
            return 1;
        }
        return test.latency() ? PingPongLoop.RX_DEPTH : StreamLoop.RX_DEPTH;
    }

    /** Takes the peer's memory and posts the receives its first messages need. */
    final void connected(PerfPeer peer) throws RdmaException {
        remoteBase = peer.address();
        rkey = peer.rkey();
        for (int i = 0; i < rxDepth(test) && test.verb() == PerfTest.Verb.SEND; i++) {
            qp.postReceive(receive);
        }
    }

    /** Clears what the peer will write for this size; it cannot write before this side's next barrier. */
    final void prepare(int size) {
        mem.asSlice(area, size).fill((byte) 0);
        control.clearStop();
    }

    /**
     * Runs the test once at {@code size}: {@code count} iterations, or for {@code -D} seconds when {@code timed}.
     * Returns what this side measured, or null when the peer measures.
     */
    abstract PerfResult measure(int size, int count, boolean timed) throws RdmaException;

    /** What a side does after each part of the warm-up, before its barrier. */
    void warmedUpPart() throws RdmaException {
    }

    /** A READ, or an atomic fetch-and-add, of the peer's target area into this side's. */
    final void configureOneSided(int size) {
        data.reset().id(DATA_ID);
        if (test.verb() == PerfTest.Verb.ATOMIC) {
            data.opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).atomic(remoteBase + area, rkey, 1, 0)
                    .add(mr, area, PerfTest.ATOMIC_SIZE);
        } else {
            data.opcode(SendOpcode.RDMA_READ).rdma(remoteBase + area, rkey).add(mr, area, size);
        }
    }

    /** When a timed run (-D) that starts now ends. */
    final long deadline() {
        return System.nanoTime() + options.seconds() * 1_000_000_000L;
    }

    /** Posts {@code data} and busy-polls its completion: perftest's latency loops do so before awaiting the peer. */
    final void postAndComplete() throws RdmaException {
        qp.postSend(data);
        while (sendCq.poll(one) == 0) {
            // busy polling, as perftest does
        }
        PerfControl.check(one, 0);
    }
}
