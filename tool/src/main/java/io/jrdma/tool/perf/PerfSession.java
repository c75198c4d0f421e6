package io.jrdma.tool.perf;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WorkCompletions;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Locale;

/**
 * One {@code jrdma perf} connection and its measurements: the data paths of each test, run between the barriers of
 * its {@link PerfControl}.
 *
 * <p>Memory layout, the same on both sides: a source area (what this side writes or sends), a target area (what the
 * peer writes, sends or reads, and where reads and atomics land), then the control area. Each size runs between two
 * barriers, so a side never writes into memory the other is still clearing.
 *
 * <p>The timed loops allocate nothing: one reusable work request, one reusable completion array, busy polling, and
 * {@link System#nanoTime()} per iteration into arrays sized up front.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=session}
 */
final class PerfSession implements AutoCloseable {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final long DATA_ID = 1;
    /** Receives kept posted for SEND tests (perftest's rx depth for bandwidth; a ping-pong needs one). */
    private static final int RX_DEPTH_BW = 512;
    private static final int RX_DEPTH_LAT = 16;
    /** perftest's default CQ moderation: one signaled send in this many, at most the tx depth. */
    private static final int CQ_MODERATION = 100;
    /**
     * The warm-up runs in this many parts. The end of a run takes branches its middle never does; the JIT compiles
     * those as traps, and the first part's end throws that code away: it is compiled again, with the end in its
     * profile, during the later parts instead of the timed run.
     */
    private static final int WARMUP_PARTS = 4;
    /**
     * Polls of the empty send queue after each part of a bandwidth warm-up: over the parts, well above HotSpot's
     * thresholds for its optimizing tier (5000 calls, 15000 calls and loops, counted again after each tier).
     */
    private static final int POLL_WARMUP = 25_000;
    /** Steps of a bandwidth run per call (see {@link Stream#advance}). */
    private static final int STEPS = 64;

    private final PerfOptions options;
    private final PerfLink link;
    private final PerfReport report;
    private final TransportRetries retries;
    private final PrintStream progress;
    private final PerfTest test;
    private final boolean client;
    private final int area;
    private final int rxDepth;

    private final PerfResources resources;
    private final PerfControl control;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final MemoryRegion mr;
    private final MemorySegment mem;
    private final int maxInline;

    private final SendWorkRequest data = new SendWorkRequest(1);
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
    private final WorkCompletions one = new WorkCompletions(1);
    private final WorkCompletions batch = new WorkCompletions(16);
    private final long[] stamps;
    private final long[] completedAt;

    private long remoteBase;
    private int rkey;
    /** When the last measured run's loop ended: before its statistics, which are no part of the run for a profiler. */
    private long loopEnd;

    /**
     * Creates the verbs objects on the link's device.
     *
     * @param progress where to show progress (a terminal), or {@code null}
     */
    PerfSession(PerfOptions options, PerfLink link, PerfReport report, PrintStream progress) throws Exception {
        this.options = options;
        this.link = link;
        this.report = report;
        this.progress = progress;
        this.test = options.test();
        this.client = options.client();
        this.area = Math.max(64, (options.maxSize() + 63) & ~63);
        this.rxDepth = test.verb() != PerfTest.Verb.SEND ? 1 : test.latency() ? RX_DEPTH_LAT : RX_DEPTH_BW;
        boolean perMessage = test.latency() || !options.noPeak();
        // The warm-up runs by count (never by time) and stamps like a measured run, which it is, untimed.
        int stamped = perMessage ? Math.max(1, options.mostIterations()) : 1;
        this.stamps = new long[stamped];
        this.completedAt = new long[perMessage && !test.latency() ? stamped : 1];
        retries = TransportRetries.of(link.context().device().name());
        resources = PerfResources.open(link, options.txDepth() + 4, rxDepth + 4,
                qp -> qp.capacity(options.txDepth() + 2, rxDepth).maxInlineData(options.inlineSize()), 2L * area,
                Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC);
        control = new PerfControl(link, resources);
        sendCq = resources.sendCq();
        recvCq = resources.recvCq();
        qp = resources.qp();
        mr = resources.mr();
        mem = mr.segment();
        maxInline = Math.min(options.inlineSize(), qp.capabilities().maxInlineData());
        receive.id(DATA_ID).add(mr, area, area);
    }

    /** Connects, runs every size, and finishes with the peer. */
    void run() throws Exception {
        PerfPeer peer = control.connect(options.setup());
        remoteBase = peer.address();
        rkey = peer.rkey();
        report.detail(String.format(Locale.ROOT, " local address:  QPN 0x%04x RKey 0x%06x VAddr 0x%016x",
                qp.qpNumber(), mr.remoteKey(), mr.address()));
        report.detail(String.format(Locale.ROOT, " remote address: %sRKey 0x%06x VAddr 0x%016x",
                peer.endpoint() == null ? "" : String.format(Locale.ROOT, "LID 0x%04x QPN 0x%04x PSN 0x%06x ",
                        peer.endpoint().lid(), peer.endpoint().qpn(), peer.endpoint().psn()), rkey, remoteBase));
        for (int i = 0; i < rxDepth && test.verb() == PerfTest.Verb.SEND; i++) {
            qp.postReceive(receive);
        }
        if (options.warmup() > 0) {
            // Start-up leaves the JIT a backlog; while it lasts the JVM delays compiling the hot path (tiered
            // compilation's back-pressure), so a warm-up run now would mostly run interpreted.
            JitQuiet.await();
        }
        List<Integer> sizes = options.sizes();
        for (int k = 0; k < sizes.size(); k++) {
            int size = sizes.get(k);
            showProgress(k, size);
            prepare(size);
            control.barrier(false);
            long warmedUp = 0;
            int warmup = options.warmup(size);
            int parts = Math.min(WARMUP_PARTS, warmup);
            for (int part = 0; part < parts; part++) {
                int n = warmup / parts + (part < warmup % parts ? 1 : 0);
                PerfResult w = measure(size, n, false);
                warmedUp += w == null ? n : w.iterations();
                prepare(size);   // the ping-pongs' counters start again from zero
                if (client && !test.latency()) {
                    warmUpCompletions();
                }
                if (part == parts - 1) {
                    JitQuiet.await();
                }
                control.barrier(false);
            }
            long retriesBefore = retries.read();
            long runStart = System.nanoTime();
            PerfResult r = measure(size, options.iterations(size), options.seconds() > 0);
            if (r != null) {   // null: a server that measures nothing itself (bandwidth, read, atomic)
                r = r.withRun(runStart, loopEnd);
            }
            long retried = retries.since(retriesBefore);
            if (client && !test.latency()) {
                control.sendResults(r);
            }
            control.barrier(k == sizes.size() - 1);
            if (!client && !test.latency()) {
                r = control.receivedResults(size);
            }
            if (r != null) {
                report.add(r.withWarmup(warmedUp).withRetries(retried));
            }
        }
        if (progress != null) {
            progress.print("\r\033[K");
            progress.flush();
        }
        link.finish();
    }

    private void showProgress(int k, int size) {
        if (progress != null) {
            progress.printf(Locale.ROOT, "\r\033[Kjrdma perf %s: %d bytes (%d of %d)%s", test.label(), size, k + 1,
                    options.sizes().size(), options.seconds() > 0 ? ", " + options.seconds() + " s" : "");
            progress.flush();
        }
    }

    /** Clears what the peer will write for this size; it cannot write before this side's next barrier. */
    private void prepare(int size) {
        mem.asSlice(area, size).fill((byte) 0);
        control.clearStop();
    }

    /**
     * Runs the test once at {@code size}: {@code count} iterations, or for {@code -D} seconds when {@code timed}.
     * Returns what this side measured, or null when the peer measures.
     */
    private PerfResult measure(int size, int count, boolean timed) throws RdmaException {
        if (test.latency()) {
            if (test.serverActive()) {
                return pingPong(size, count, timed);
            }
            return client ? oneSided(size, count, timed) : null;
        }
        if (client) {
            return stream(size, count, timed);
        }
        if (test.verb() == PerfTest.Verb.SEND) {
            receiveStream(count, timed);
        }
        return null;
    }

    /**
     * write-lat and send-lat: the client sends first, each side answers what it received; every iteration is one
     * round trip. As in perftest, a side awaits its own send's completion before the peer's message. A write is seen
     * by polling the last byte of the target area for the iteration's counter.
     */
    private PerfResult pingPong(int size, int count, boolean timed) throws RdmaException {
        boolean write = test.verb() == PerfTest.Verb.WRITE;
        data.reset().id(DATA_ID).opcode(write ? SendOpcode.RDMA_WRITE : SendOpcode.SEND).signaled(true)
                .inline(size <= maxInline).add(mr, 0, size);
        if (write) {
            data.rdma(remoteBase + area, rkey);
        }
        RoundTrips run = new RoundTrips(write, size, timed ? Integer.MAX_VALUE : count, timed);
        boolean more;
        do {
            more = run.step();
        } while (more);
        long end = System.nanoTime();
        loopEnd = end;
        if (!timed) {
            return PerfResult.latency(size, run.iters,
                    LatencyStatistics.ofStamps(stamps, run.iters, test.rttFactor()));
        }
        if (client) {
            control.writeStop(run.sent);
        }
        return PerfResult.averageLatency(size, run.sent,
                (end - run.first) / 1e3 / Math.max(run.sent, 1) / test.rttFactor());
    }

    /**
     * One ping-pong run's state. As in {@link Stream}, its loop is entered once per size, so each iteration is a
     * call of {@link #step}, a method the warm-up compiles.
     */
    private final class RoundTrips {
        final boolean write;
        final int iters;
        final boolean timed;
        final boolean watchStop;
        final long deadline;
        /** Where the peer's write lands last, and where this side's counter goes. */
        final long pollAt;
        final long postAt;
        int sent;
        int received;
        long first;

        RoundTrips(boolean write, int size, int iters, boolean timed) {
            this.write = write;
            this.iters = iters;
            this.timed = timed;
            this.watchStop = timed && !client;
            this.deadline = deadline();
            this.pollAt = area + size - 1;
            this.postAt = size - 1;
        }

        /** Awaits the peer's message (but for the client's first send), then sends; whether the run goes on. */
        boolean step() throws RdmaException {
            if (received < iters && !(sent == 0 && client)) {
                if (!(write ? awaitWrite(pollAt, (byte) (received + 1), watchStop) : awaitReceive(watchStop))) {
                    return false;
                }
                received++;
            }
            if (sent < iters) {
                long now = System.nanoTime();
                if (timed) {
                    if (client && now - deadline > 0) {
                        return false;
                    }
                    if (sent == 0) {
                        first = now;
                    }
                } else {
                    stamps[sent] = now;
                }
                sent++;
                if (write) {
                    mem.set(ValueLayout.JAVA_BYTE, postAt, (byte) sent);
                }
                postAndComplete();
            }
            return sent < iters || received < iters;
        }
    }

    private boolean awaitWrite(long at, byte counter, boolean watchStop) {
        while ((byte) BYTE.getVolatile(mem, at) != counter) {
            if (watchStop && control.stopCount() >= 0) {
                return false;
            }
        }
        return true;
    }

    private boolean awaitReceive(boolean watchStop) throws RdmaException {
        while (recvCq.poll(one) == 0) {
            if (watchStop && control.stopCount() >= 0) {
                return false;
            }
        }
        PerfControl.check(one, 0);
        qp.postReceive(receive);
        return true;
    }

    /**
     * read-lat and atomic-lat: the client times each complete operation; the server's memory just answers. This loop
     * is entered once per size, so the JIT would reach it only late in a run, if at all: each operation is a call of
     * {@link #oneSidedStep}, which the warm-up compiles.
     */
    private PerfResult oneSided(int size, int count, boolean timed) throws RdmaException {
        configureOneSided(size);
        data.signaled(true);
        int iters = timed ? Integer.MAX_VALUE : count;
        long deadline = deadline();
        long first = System.nanoTime();
        int done = 0;
        while (done < iters && oneSidedStep(done, timed, deadline)) {
            done++;
        }
        long end = System.nanoTime();
        loopEnd = end;
        if (!timed) {
            return PerfResult.latency(size, iters, LatencyStatistics.ofStamps(stamps, iters, test.rttFactor()));
        }
        return PerfResult.averageLatency(size, done, (end - first) / 1e3 / Math.max(done, 1));
    }

    /** Operation {@code i}, stamped with its start; false, without it, once the deadline has passed (timed). */
    private boolean oneSidedStep(int i, boolean timed, long deadline) throws RdmaException {
        long now = System.nanoTime();
        if (timed) {
            if (now - deadline > 0) {
                return false;
            }
        } else {
            stamps[i] = now;
        }
        postAndComplete();
        return true;
    }

    private void configureOneSided(int size) {
        data.reset().id(DATA_ID);
        if (test.verb() == PerfTest.Verb.ATOMIC) {
            data.opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).atomic(remoteBase + area, rkey, 1, 0)
                    .add(mr, area, PerfTest.ATOMIC_SIZE);
        } else {
            data.opcode(SendOpcode.RDMA_READ).rdma(remoteBase + area, rkey).add(mr, area, size);
        }
    }

    /**
     * The bandwidth tests' client: the tx depth kept full, one send in {@code min(100, tx depth)} signaled (and the
     * last); a completion stands for every message up to its wr_id. For the peak every post and completion is timed;
     * without it (-N, -D) only the first post and the last completion, as perftest does.
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

    /** When a timed run (-D) that starts now ends. */
    private long deadline() {
        return System.nanoTime() + options.seconds() * 1_000_000_000L;
    }

    /** Posts {@code data} and busy-polls its completion: perftest's latency loops do so before awaiting the peer. */
    private void postAndComplete() throws RdmaException {
        qp.postSend(data);
        while (sendCq.poll(one) == 0) {
            // busy polling, as perftest does
        }
        PerfControl.check(one, 0);
    }

    @Override
    public void close() throws Exception {
        resources.close();
    }
}
