package io.jrdma.tool.perf;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.DeviceAttributes;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * One {@code jrdma blocks} connection: the verbs objects, the message loops of each mode, zero-copy and packed, and
 * the check of every destination.
 *
 * <p>Memory, the same on both sides: the strided layout at 0 (the client's source for write and send, its destination
 * for read; the server's destination for send), then a contiguous area (the packing side's staging buffer; the
 * server's destination for write and its source for read), then a small control area: the server's acknowledgement
 * of a send and the results each side tells the other. Each run sits between two barriers (perf's TCP handshake),
 * so a side never clears memory the other still writes, and a side that waits there sleeps.
 *
 * <p>Each run's data is seeded with the number of messages moved on the connection once the run is over, so the
 * bytes of an earlier run (or of the warm-up) fail the check. The message loops allocate nothing: work requests set
 * up before the run, one reusable completion array, busy polling, {@link System#nanoTime()} into an array sized up
 * front.
 *
 * {@snippet class=io.jrdma.tool.perf.BlocksSnippets region=session}
 */
final class BlocksSession implements AutoCloseable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final int STRIDED = 0;
    /** Control area offsets: the acknowledgement, the peer's results, then what this side writes into the peer's. */
    private static final int ACK = 0;
    private static final int INBOX = 8;
    private static final int OUTBOX_ACK = 64;
    private static final int OUTBOX = 72;
    private static final int RESULTS = 6;
    private static final long DATA_ID = 1;
    private static final long CONTROL_ID = 2;
    private static final int SPINS_BEFORE_YIELD = 200;

    private final BlocksOptions options;
    private final PerfLink link;
    private final BlocksTable table;
    private final boolean client;
    private final long contiguous;
    private final long control;
    private final TransportRetries retries;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final boolean cpuTime = threads.isCurrentThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled();

    private final PerfResources resources;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final MemoryRegion mr;
    private final MemorySegment mem;

    private final SendWorkRequest data;
    private final ReceiveWorkRequest receive;
    private final SendWorkRequest ack = new SendWorkRequest(1);
    private final SendWorkRequest results = new SendWorkRequest(1);
    private final WorkCompletions one = new WorkCompletions(1);
    private final long[] stamps;

    /** The layout being moved, and its blocks packed. */
    private BlockLayout layout;
    private BlockLayout packed;
    private long remoteBase;
    private int rkey;
    /** Messages moved on this connection so far. */
    private long messages;
    /** CPU time, in ns, the current run spent busy-polling. */
    private long waited;

    /**
     * Checks the layout against the device's limits, then creates the verbs objects on the link's device.
     *
     * @throws IllegalArgumentException when the device cannot scatter or gather that many blocks in one request
     */
    BlocksSession(BlocksOptions options, PerfLink link, BlocksTable table) throws Exception {
        this.options = options;
        this.link = link;
        this.table = table;
        this.client = options.client();
        this.contiguous = align(options.maxExtent());
        // A layout's payload is at most its span, so its packed extent is at most the largest extent.
        this.control = align(contiguous + options.maxExtent());
        this.stamps = new long[Math.max(options.iterations(), options.warmup()) + 1];
        var ctx = link.context();
        DeviceAttributes device = ctx.queryDevice();
        options.checkDevice(ctx.device().name(), device.maxSge(), device.maxSgeRd());
        retries = TransportRetries.of(ctx.device().name());
        int sges = options.maxBlocks();
        data = new SendWorkRequest(sges);
        receive = new ReceiveWorkRequest(sges);
        resources = PerfResources.open(link, 8, 8, qp -> qp.capacity(4, 4).sge(sges, sges), control,
                Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
        sendCq = resources.sendCq();
        recvCq = resources.recvCq();
        qp = resources.qp();
        mr = resources.mr();
        mem = mr.segment();
    }

    private static long align(long bytes) {
        return (bytes + 63) & ~63L;
    }

    /** Connects; per layout, warms every mode and variant up, then times each; finishes with the peer. */
    void run() throws Exception {
        PerfPeer peer = link.connect(qp, new PerfPeer(options.setup().hashCode(), mr.address(), mr.remoteKey(), null));
        remoteBase = peer.address();
        rkey = peer.rkey();
        if (options.warmup() > 0) {
            // Start-up leaves the JIT a backlog: see PerfSession.
            JitQuiet.await();
        }
        for (BlockLayout l : options.layouts()) {
            layout = l;
            packed = l.contiguous();
            if (options.warmup() > 0) {
                for (BlocksMode mode : options.modes()) {
                    move(mode, false, options.warmup(), false);
                    move(mode, true, options.warmup(), false);
                }
                // One loop serves every mode and variant: after all the warm-ups the JIT has seen them all.
                JitQuiet.await();
            }
            for (BlocksMode mode : options.modes()) {
                table.add(move(mode, false, options.iterations(), true));
                table.add(move(mode, true, options.iterations(), true));
            }
        }
        link.finish();
    }

    /**
     * Moves {@code count} messages of {@code mode}, between two barriers, then checks the destination and exchanges
     * the results when {@code timed}; returns the row, or null when not timed.
     */
    private BlocksResult move(BlocksMode mode, boolean pack, int count, boolean timed) throws Exception {
        configure(mode, pack);
        long first = messages;
        long seed = messages + count;
        prepare(mode, seed);
        link.sync();
        long retriesBefore = retries.read();
        waited = 0;
        long cpu = cpuNanos();
        if (client) {
            for (int i = 0; i < count; i++) {
                stamps[i] = System.nanoTime();
                clientMessage(mode, pack, first + i + 1);
            }
            stamps[count] = System.nanoTime();
        } else if (mode == BlocksMode.SEND) {
            for (int i = 0; i < count; i++) {
                serverMessage(pack, first + i + 1, i + 1 < count);
            }
        }
        cpu = cpuNanos() - cpu;
        long retried = retries.since(retriesBefore);
        link.sync();
        messages += count;
        if (!timed) {
            return null;
        }
        String wrong = client == mode.serverReceives() ? null
                : mode == BlocksMode.WRITE ? packed.check(mem, contiguous, seed) : layout.check(mem, STRIDED, seed);
        publish(cpu, wrong == null, count);
        link.sync();
        if (wrong != null) {
            throw new IllegalStateException(String.format(Locale.ROOT, "blocks: %s %s: the destination is wrong "
                    + "after %d messages: %s", mode.label(), pack ? "packed" : "zero-copy", count, wrong));
        }
        if (peer(2) == 0) {
            throw new IllegalStateException(String.format(Locale.ROOT, "blocks: %s %s: the %s found wrong bytes in "
                    + "its destination (see its output)", mode.label(), pack ? "packed" : "zero-copy",
                    client ? "server" : "client"));
        }
        return result(mode, pack, count, cpu, retried);
    }

    /** Sets up the work requests of a run: one entry per block, or one for the staging buffer. */
    private void configure(BlocksMode mode, boolean pack) {
        data.reset().id(DATA_ID).signaled(true);
        receive.reset().id(DATA_ID);
        switch (mode) {
            case WRITE -> data.opcode(SendOpcode.RDMA_WRITE).rdma(remoteBase + contiguous, rkey);
            case READ -> data.opcode(SendOpcode.RDMA_READ).rdma(remoteBase + contiguous, rkey);
            case SEND -> data.opcode(SendOpcode.SEND);
        }
        if (pack) {
            data.add(mr, contiguous, layout.payload());
            receive.add(mr, contiguous, layout.payload());
        } else {
            for (int b = 0; b < layout.blocks(); b++) {
                data.add(mr, STRIDED + layout.offset(b), layout.blockSize());
                receive.add(mr, STRIDED + layout.offset(b), layout.blockSize());
            }
        }
        ack.reset().id(CONTROL_ID).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                .rdma(remoteBase + control + ACK, rkey).add(mr, control + OUTBOX_ACK, 8);
    }

    /** Fills the source with the run's data, clears the destination; the server of a send posts its receive. */
    private void prepare(BlocksMode mode, long seed) throws RdmaException {
        mem.asSlice(control + INBOX, 8L * RESULTS).fill((byte) 0);
        switch (mode) {
            case WRITE -> {
                if (client) {
                    layout.fill(mem, STRIDED, seed);
                } else {
                    packed.clear(mem, contiguous);
                }
            }
            case READ -> {
                if (client) {
                    layout.clear(mem, STRIDED);
                } else {
                    packed.fill(mem, contiguous, seed);
                }
            }
            case SEND -> {
                if (client) {
                    layout.fill(mem, STRIDED, seed);
                } else {
                    layout.clear(mem, STRIDED);
                    qp.postReceive(receive);
                }
            }
        }
    }

    /**
     * The client's message {@code sequence}: packs (write, send), posts and awaits the completion, unpacks (read);
     * a send is over once the server acknowledges it, its blocks in place.
     */
    private void clientMessage(BlocksMode mode, boolean pack, long sequence) throws RdmaException {
        if (pack && mode != BlocksMode.READ) {
            layout.pack(mem, STRIDED, contiguous);
        }
        qp.postSend(data);
        awaitSend();
        if (pack && mode == BlocksMode.READ) {
            layout.unpack(mem, contiguous, STRIDED);
        }
        if (mode == BlocksMode.SEND) {
            long start = cpuNanos();
            for (int spins = 0; (long) LONG.getVolatile(mem, control + ACK) < sequence; spins++) {
                pause(spins);
            }
            waited += cpuNanos() - start;
        }
    }

    /**
     * The server's side of send message {@code sequence}: awaits it, unpacks it (packed), posts the next receive
     * (unless it was the run's last) and acknowledges it with an RDMA write of its sequence number.
     */
    private void serverMessage(boolean pack, long sequence, boolean more) throws RdmaException {
        long start = cpuNanos();
        for (int spins = 0; recvCq.poll(one) == 0; spins++) {
            pause(spins);
        }
        waited += cpuNanos() - start;
        check(one);
        if (one.byteLength(0) != layout.payload()) {
            throw new IllegalStateException("blocks: received " + one.byteLength(0) + " bytes, not "
                    + layout.payload());
        }
        if (pack) {
            layout.unpack(mem, contiguous, STRIDED);
        }
        if (more) {
            qp.postReceive(receive);
        }
        mem.set(ValueLayout.JAVA_LONG, control + OUTBOX_ACK, sequence);
        qp.postSend(ack);
        awaitSend();
    }

    /** Busy-polls the send queue's one completion, counting its CPU time as waiting. */
    private void awaitSend() throws RdmaException {
        long start = cpuNanos();
        for (int spins = 0; sendCq.poll(one) == 0; spins++) {
            pause(spins);
        }
        waited += cpuNanos() - start;
        check(one);
    }

    /**
     * A busy wait's step: a spin, then after {@value #SPINS_BEFORE_YIELD} of them a yield, so that the kernel work
     * Soft-RoCE defers to a softirq thread on this CPU is not held off by a side that only waits. It does not help
     * when the host itself is short of cores: send, where both sides wait at once, then still has runs whose
     * messages take milliseconds (docs/noncontiguous.md marks them).
     */
    private static void pause(int spins) {
        if (spins < SPINS_BEFORE_YIELD) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    private static void check(WorkCompletions wc) {
        if (wc.status(0) != WcStatus.SUCCESS) {
            throw new IllegalStateException(String.format(Locale.ROOT, "blocks: completion failed: %s (status %d, "
                    + "vendor error 0x%x, wr_id %d)", wc.status(0).description(), wc.status(0).value(),
                    wc.vendorError(0), wc.id(0)));
        }
    }

    /** This thread's CPU time, user and system, in ns; 0 where the JVM cannot tell. */
    private long cpuNanos() {
        return cpuTime ? threads.getCurrentThreadCpuTime() : 0;
    }

    /**
     * Writes this side's results into the peer's control area: CPU time and waits in ns, whether the check passed,
     * and (the client's) median, fastest and average time per message in µs.
     */
    private void publish(long cpu, boolean checked, int count) throws RdmaException {
        double typical = Double.NaN;
        double min = Double.NaN;
        double avg = Double.NaN;
        if (client) {
            LatencyStatistics s = LatencyStatistics.ofStamps(stamps, count + 1, 1);
            typical = s.typicalMicros();
            min = s.minMicros();
            avg = (stamps[count] - stamps[0]) / 1e3 / count;
        }
        long[] values = {cpu, waited, checked ? 1 : 0, Double.doubleToRawLongBits(typical),
                Double.doubleToRawLongBits(min), Double.doubleToRawLongBits(avg)};
        for (int i = 0; i < RESULTS; i++) {
            mem.set(ValueLayout.JAVA_LONG, control + OUTBOX + 8L * i, values[i]);
        }
        results.reset().id(CONTROL_ID).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                .rdma(remoteBase + control + INBOX, rkey).add(mr, control + OUTBOX, 8 * RESULTS);
        qp.postSend(results);
        awaitSend();
    }

    /** Value {@code i} the peer published. */
    private long peer(int i) {
        return (long) LONG.getVolatile(mem, control + INBOX + 8L * i);
    }

    /** Value {@code i} this side published. */
    private long mine(int i) {
        return mem.get(ValueLayout.JAVA_LONG, control + OUTBOX + 8L * i);
    }

    private BlocksResult result(BlocksMode mode, boolean pack, int count, long cpu, long retried) {
        long clientCpu = client ? cpu : peer(0);
        long clientWaited = client ? mine(1) : peer(1);
        long serverCpu = client ? peer(0) : cpu;
        long serverWaited = client ? peer(1) : mine(1);
        int timesFrom = 3;
        double typical = Double.longBitsToDouble(client ? mine(timesFrom) : peer(timesFrom));
        double min = Double.longBitsToDouble(client ? mine(timesFrom + 1) : peer(timesFrom + 1));
        double avg = Double.longBitsToDouble(client ? mine(timesFrom + 2) : peer(timesFrom + 2));
        double perMessage = 1e3 * count;
        return new BlocksResult(layout, mode, pack, pack ? 1 : layout.blocks(), count, options.warmup(),
                typical, min, avg, (clientCpu - clientWaited) / perMessage,
                (serverCpu - serverWaited) / perMessage, clientCpu / perMessage, serverCpu / perMessage,
                client ? retried : -1);
    }

    @Override
    public void close() throws Exception {
        resources.close();
    }
}
