package io.jrdma.tool.perf;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.SendOpcode;

/**
 * The bandwidth tests: the client streams and measures, the server takes send-bw's messages (and nothing else) and
 * reports the client's results; the results cross on the control channel.
 */
final class StreamLoop extends PerfLoop {
    /** Receives kept posted for send-bw: perftest's rx depth for bandwidth. */
    static final int RX_DEPTH = 512;
    /** perftest's default CQ moderation: one signaled send in this many, at most the tx depth. */
    private static final int CQ_MODERATION = 100;
    /**
     * Polls of the empty send queue after each part of a bandwidth warm-up: over the parts, well above HotSpot's
     * thresholds for its optimizing tier (5000 calls, 15000 calls and loops, counted again after each tier).
     */
    private static final int POLL_WARMUP = 25_000;
    /** Steps of a bandwidth run per call (see {@link Stream#advance}). */
    private static final int STEPS = 64;

    StreamLoop(PerfOptions options, PerfResources resources, PerfControl control, int area) {
        super(options, resources, control, area);
    }

    @Override
    PerfResult measure(int size, int count, boolean timed) throws RdmaException {
        if (client) {
            return stream(size, count, timed);
        }
        if (test.verb() == PerfTest.Verb.SEND) {
            receiveStream(count, timed);
        }
        return null;
    }

    @Override
    void warmedUpPart() throws RdmaException {
        if (client) {
            warmUpCompletions();
        }
    }

    /**
     * The client: the tx depth kept full, one send in {@code min(100, tx depth)} signaled (and the last); a
     * completion stands for every message up to its wr_id. For the peak every post and completion is timed; without
     * it (-N, -D) only the first post and the last completion, as perftest does.
     */
    private PerfResult stream(int size, int count, boolean timed) throws RdmaException {
        switch (test.verb()) {
            case WRITE -> data.reset().opcode(SendOpcode.RDMA_WRITE).rdma(remoteBase + area, rkey)
                    .inline(size <= maxInline).add(mr, 0, size);
            case SEND -> data.reset().opcode(SendOpcode.SEND).inline(size <= maxInline).add(mr, 0, size);
            default -> configureOneSided(size);
        }
        Stream run = new Stream(options.txDepth(), count, timed);
        run.first = System.nanoTime();   // the first post's time, taken here: in step() it would be a rare branch
        boolean more;
        do {
            more = run.advance();
        } while (more);
        loopEnd = System.nanoTime();
        if (run.perMessage) {
            return PerfResult.bandwidth(size, run.posted,
                    BandwidthStatistics.of(stamps, completedAt, (int) run.posted, size));
        }
        if (timed) {
            control.writeStop(run.posted);
        }
        return PerfResult.bandwidth(size, run.posted, BandwidthStatistics.ofTotal((long) size * run.posted,
                run.posted, run.lastCompletion - run.first, 0));
    }

    /**
     * One bandwidth run's state. Its loop is entered once per size, so the JIT would reach it only by on-stack
     * replacement, late in a run, and compiling it there takes the CPU from the run: the loop's work is in
     * {@link #advance} and {@link #step}, compiled as methods during the warm-up.
     * A step has no branch that only a run's first or last message takes: the JIT would compile it as a trap, and
     * the warm-up's last message would throw the compiled step away just before the timed run.
     */
    private final class Stream {
        final int txDepth;
        final int cqMod;
        final boolean timed;
        final boolean perMessage;
        final long deadline;
        long limit;
        /** The next message to signal: every cqMod-th and the last. */
        long nextSignaled;
        long posted;
        long completed;
        long first;
        long lastCompletion;

        Stream(int txDepth, int count, boolean timed) {
            this.txDepth = txDepth;
            this.cqMod = Math.min(CQ_MODERATION, txDepth);
            this.timed = timed;
            this.perMessage = !timed && !options.noPeak();
            this.limit = timed ? Long.MAX_VALUE : count;
            this.nextSignaled = Math.min(cqMod, limit) - 1;
            this.deadline = deadline();
        }

        /** Up to {@link #STEPS} steps, fewer at the end; whether the run goes on. Its caller loops seldom. */
        boolean advance() throws RdmaException {
            for (int i = 0; i < STEPS && completed < limit; i++) {
                step();
            }
            return completed < limit;
        }

        /**
         * Posts the next message while the tx depth has room, else waits for completions: a completion stands for
         * every message up to its wr_id, and each gets its time when measuring per message. One method for both, as
         * a method called once per hundred messages would reach the JIT's thresholds only late in a run.
         */
        void step() throws RdmaException {
            if (posted < limit && posted - completed < txDepth) {
                if (perMessage || timed) {
                    long now = System.nanoTime();
                    if (timed && limit == Long.MAX_VALUE && posted > 0 && now - deadline > 0) {
                        limit = posted + 1;
                        nextSignaled = posted;
                    }
                    if (perMessage) {
                        stamps[(int) posted] = now;
                    }
                }
                // One test, taken every cqMod-th message: "or the last" as a test of its own would be taken once,
                // at the warm-up's end, after the JIT compiled it as a trap.
                boolean signaled = posted == nextSignaled;
                if (signaled) {
                    nextSignaled = Math.min(posted + cqMod, limit - 1);
                }
                data.id(posted).signaled(signaled);
                qp.postSend(data);
                posted++;
                return;
            }
            int n;
            do {
                n = sendCq.poll(batch);   // busy polling, as perftest does
            } while (n == 0);
            long now = System.nanoTime();
            for (int i = 0; i < n; i++) {
                PerfControl.check(batch, i);
                long upTo = batch.id(i);
                for (long c = completed; perMessage && c <= upTo; c++) {
                    completedAt[(int) c] = now;
                }
                completed = upTo + 1;
            }
            lastCompletion = now;
        }
    }

    /** send-bw's server: takes the client's messages, reposting each receive. */
    private void receiveStream(int count, boolean timed) throws RdmaException {
        long limit = timed ? Long.MAX_VALUE : count;
        long received = 0;
        while (received < limit) {
            long next = receiveBatch(received, limit, timed);
            if (next == received) {
                return;   // the client stopped (duration mode)
            }
            received = next;
        }
    }

    /**
     * Takes up to {@link #STEPS} messages (fewer at the end, or once the client has stopped); returns the new count.
     * The loop calling it then turns seldom, so the JIT compiles this method whole rather than that loop mid-run.
     */
    private long receiveBatch(long received, long limit, boolean timed) throws RdmaException {
        long end = Math.min(limit, received + STEPS);
        while (received < end) {
            int n = receiveSome(timed, received);
            if (n == 0) {
                break;
            }
            received += n;
        }
        return received;
    }

    /**
     * Busy-polls until messages arrive and reposts a receive for each; returns how many, or 0 once the client has
     * stopped after {@code received} (duration mode).
     */
    private int receiveSome(boolean timed, long received) throws RdmaException {
        int n;
        while ((n = recvCq.poll(batch)) == 0) {
            if (timed) {
                long stop = control.stopCount();
                if (stop >= 0 && received >= stop) {
                    return 0;
                }
            }
        }
        for (int i = 0; i < n; i++) {
            PerfControl.check(batch, i);
            qp.postReceive(receive);
        }
        return n;
    }

    /**
     * Runs what a bandwidth run does per completion, a hundred messages, on its own until the JIT has compiled it:
     * the poll and the completion's check. A warm-up of some thousand messages runs it too seldom for the JIT to
     * inline it into {@link Stream#step} or to compile it at all; a profile of write-bw at 4 KiB showed the JIT
     * compiling it in the middle of the timed run. The queue is empty, as a run ends on its last completion, and
     * the array still holds that completion, a success.
     */
    private void warmUpCompletions() throws RdmaException {
        for (int i = 0; i < POLL_WARMUP; i++) {
            if (sendCq.poll(batch) != 0) {
                throw new IllegalStateException("a send completed after its run had ended");
            }
            PerfControl.check(batch, 0);
        }
    }
}
