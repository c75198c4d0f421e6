package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.ConnectOptions;
import io.jrdma.ibverbs.Context;
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
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.nativetest.support.RcPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Many threads, one device, {@link #MESSAGES} messages per scenario: every message carries its stream, its sequence
 * number, a payload derived from both and a CRC32, and the receiver checks each one in arrival order, so a lost,
 * duplicated, reordered or corrupted message fails the test. Sends are inline, chained {@value #BATCH} to a post
 * with only the last one signaled; receive credits are handed from receiver to senders in memory, so no send ever
 * meets an empty receive queue. {@code -Djrdma.load.messages=N} changes the count.
 */
@RdmaDeviceTest
class LoadDeviceTest {
    /** Messages per scenario: a million (about 3 minutes for both scenarios on Soft-RoCE in the emulated VM). */
    static final long MESSAGES = Long.getLong("jrdma.load.messages", 1_000_000);
    static final int THREADS = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    static final int MESSAGE = 32;
    static final int BATCH = 16;
    /** Sends a thread may have on the wire whose completion it has not seen. */
    static final int WINDOW = 256;
    /** Receives posted per receiving queue pair (the credits senders draw on). */
    static final int RING = 1024;
    static final long DEADLINE_NANOS = TimeUnit.MINUTES.toNanos(8);

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void threadsOnSeparateQueuePairsSharingOneCompletionQueueLoseNothing(Context ctx) throws Exception {
        try (Bench b = new Bench(ctx, THREADS)) {
            b.run("separate queue pairs, one shared send CQ and one shared receive CQ", t -> t);
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void threadsPostingConcurrentlyOnOneQueuePairLoseNothing(Context ctx) throws Exception {
        try (Bench b = new Bench(ctx, 1)) {
            b.run("one queue pair posted to by every thread", t -> 0);
        }
    }

    /** Sender thread number → the index of the queue pair it posts on. */
    @FunctionalInterface
    interface Route {
        int pairOf(int thread);
    }

    /**
     * {@code pairs} connected queue pairs (senders on one side, receivers on the other), all senders on one CQ and
     * all receivers on another, each receiver with {@link #RING} posted receives.
     */
    static final class Bench implements AutoCloseable {
        final ProtectionDomain pd;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final List<QueuePair> senders = new ArrayList<>();
        final List<QueuePair> receivers = new ArrayList<>();
        final MemoryRegion ring;
        final MemoryRegion staging;
        /** Per receiving queue pair: receives posted that no sender has claimed yet. */
        final AtomicLongArray credits;
        /** Per sender thread: sends whose completion (or a later signaled one's) has been polled. */
        final AtomicLongArray completed = new AtomicLongArray(THREADS);
        final AtomicReference<String> failure = new AtomicReference<>();
        final long perThread = (MESSAGES + THREADS - 1) / THREADS;
        final long start = System.nanoTime();

        Bench(Context ctx, int pairs) throws Exception {
            pd = ctx.allocateProtectionDomain();
            sendCq = ctx.createCompletionQueue(THREADS * (WINDOW / BATCH + 2));
            recvCq = ctx.createCompletionQueue(pairs * RING);
            ring = pd.allocate((long) pairs * RING * MESSAGE, Access.LOCAL_WRITE);
            staging = pd.allocate((long) THREADS * BATCH * MESSAGE, Access.LOCAL_WRITE);
            credits = new AtomicLongArray(pairs);
            int sendDepth = (THREADS / pairs) * (WINDOW + BATCH);
            ConnectOptions options = ConnectOptions.of(1, DeviceSupport.gidIndex(ctx), ctx.queryPort(1).activeMtu());
            for (int q = 0; q < pairs; q++) {
                QueuePair s = pd.queuePair(QpType.RC).sendQueue(sendCq).receiveQueue(sendCq)
                        .capacity(sendDepth, 1).maxInlineData(MESSAGE).create();
                QueuePair r = pd.queuePair(QpType.RC).sendQueue(recvCq).receiveQueue(recvCq)
                        .capacity(1, RING).create();
                senders.add(s);
                receivers.add(r);
                RcPair.connect(s, r, DeviceSupport.gidIndex(ctx), options);
                ReceiveWorkRequest rr = new ReceiveWorkRequest(1);
                for (int slot = 0; slot < RING; slot++) {
                    r.postReceive(rr.reset().id(receiveId(q, slot)).add(ring, ringOffset(q, slot), MESSAGE));
                }
                credits.set(q, RING);
            }
        }

        void run(String scenario, Route route) throws Exception {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                threads.add(Thread.ofPlatform().name("load-sender-" + t).start(() -> guard(() -> send(thread, route))));
            }
            long[] next = receive(route);
            for (Thread t : threads) {
                t.join(TimeUnit.MINUTES.toMillis(1));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf(Locale.ROOT, "load: %s: %d threads moved %d messages of %d bytes in %.1f s "
                    + "(%.0f messages/s)%n", scenario, THREADS, perThread * THREADS, MESSAGE, seconds,
                    perThread * THREADS / seconds);
            assertNull(failure.get());
            for (int t = 0; t < THREADS; t++) {
                assertEquals(perThread, next[t], "messages of stream " + t);
                assertEquals(perThread, completed.get(t), "send completions of stream " + t);
            }
            // Nothing beyond the last message: a duplicate would still be on its way.
            WorkCompletions late = new WorkCompletions(16);
            Thread.sleep(200);
            assertEquals(0, recvCq.poll(late), "no message after the last one");
        }

        /** Sender {@code t}: its messages in order, in signaled chains of {@link #BATCH}. */
        private void send(int t, Route route) throws Exception {
            int pair = route.pairOf(t);
            QueuePair qp = senders.get(pair);
            SendWorkRequest[] chain = new SendWorkRequest[BATCH];
            for (int i = 0; i < BATCH; i++) {
                chain[i] = new SendWorkRequest(1);
            }
            WorkCompletions wcs = new WorkCompletions(32);
            CRC32 crc = new CRC32();
            MemorySegment stage = staging.segment().asSlice((long) t * BATCH * MESSAGE, BATCH * MESSAGE);
            ByteBuffer stageBytes = stage.asByteBuffer();
            for (long seq = 0; seq < perThread && failure.get() == null; ) {
                int n = (int) Math.min(BATCH, perThread - seq);
                for (long spins = 0; seq - completed.get(t) + n > WINDOW; spins++) {
                    pollSends(wcs, spins);
                }
                for (long spins = 0; !claim(pair, n); spins++) {
                    pollSends(wcs, spins);
                }
                for (int i = 0; i < n; i++) {
                    write(stage, stageBytes, i * MESSAGE, t, seq + i, crc);
                    chain[i].reset().opcode(SendOpcode.SEND).inline(true)
                            .add(staging, (long) (t * BATCH + i) * MESSAGE, MESSAGE)
                            .next(i + 1 < n ? chain[i + 1] : null);
                }
                // One completion for the chain: the thread and how many sends it accounts for.
                chain[n - 1].signaled(true).id(((long) t << 32) | n);
                qp.postSend(chain[0]);
                seq += n;
            }
            for (long spins = 0; completed.get(t) < perThread && failure.get() == null; spins++) {
                pollSends(wcs, spins);
            }
        }

        private boolean claim(int pair, int n) {
            long c = credits.get(pair);
            return c >= n && credits.compareAndSet(pair, c, c - n);
        }

        /** Any sender polls the shared send CQ and credits each completion to the thread that posted it. */
        private void pollSends(WorkCompletions wcs, long spins) throws RdmaException {
            if (failure.get() != null) {
                throw new IllegalStateException("stopped by another thread's failure");
            }
            if (System.nanoTime() - start > DEADLINE_NANOS) {
                fail("a sender still waits for completions or credits at the deadline");
            }
            int n = sendCq.poll(wcs);
            for (int i = 0; i < n; i++) {
                if (wcs.status(i) != WcStatus.SUCCESS) {
                    fail("send completion " + Long.toHexString(wcs.id(i)) + ": " + wcs.status(i).description());
                }
                completed.addAndGet((int) (wcs.id(i) >>> 32), (int) wcs.id(i));
            }
            if (n == 0) {
                idle(spins);
            }
        }

        /** The receiver: checks every message as it comes and reposts its buffer; returns each stream's count. */
        private long[] receive(Route route) throws Exception {
            long[] next = new long[THREADS];
            long total = perThread * THREADS;
            WorkCompletions wcs = new WorkCompletions(64);
            ReceiveWorkRequest rr = new ReceiveWorkRequest(1);
            CRC32 crc = new CRC32();
            MemorySegment mem = ring.segment();
            ByteBuffer bytes = mem.asByteBuffer();
            long[] reposted = new long[receivers.size()];
            for (long got = 0, spins = 0; got < total && failure.get() == null; ) {
                if (System.nanoTime() - start > DEADLINE_NANOS) {
                    fail("only " + got + " of " + total + " messages arrived in time");
                    break;
                }
                int n = recvCq.poll(wcs);
                if (n == 0) {
                    idle(spins++);
                    continue;
                }
                spins = 0;
                for (int i = 0; i < n; i++) {
                    int pair = (int) (wcs.id(i) >>> 32);
                    int slot = (int) wcs.id(i);
                    if (wcs.status(i) != WcStatus.SUCCESS || wcs.byteLength(i) != MESSAGE) {
                        fail("receive " + got + ": " + wcs.status(i).description() + ", " + wcs.byteLength(i) + " B");
                        break;
                    }
                    String bad = check(mem, bytes, ringOffset(pair, slot), pair, route, next, crc);
                    if (bad != null) {
                        fail("message " + got + " (pair " + pair + ", slot " + slot + "): " + bad);
                        break;
                    }
                    got++;
                    receivers.get(pair).postReceive(rr.reset().id(receiveId(pair, slot))
                            .add(ring, ringOffset(pair, slot), MESSAGE));
                    reposted[pair]++;
                }
                for (int q = 0; q < reposted.length; q++) {
                    credits.addAndGet(q, reposted[q]);
                    reposted[q] = 0;
                }
            }
            return next;
        }

        /** Null if the message at {@code at} is the next of its stream, intact; else what is wrong with it. */
        private static String check(MemorySegment mem, ByteBuffer bytes, long at, int pair, Route route, long[] next,
                                    CRC32 crc) {
            long seq = mem.get(ValueLayout.JAVA_LONG, at);
            int stream = mem.get(ValueLayout.JAVA_INT, at + 24);
            crc.reset();
            crc.update(bytes.clear().position((int) at).limit((int) at + 28));
            if ((int) crc.getValue() != mem.get(ValueLayout.JAVA_INT, at + 28)) {
                return "CRC mismatch (stream " + stream + ", seq " + seq + ")";
            }
            if (stream < 0 || stream >= THREADS || route.pairOf(stream) != pair) {
                return "stream " + stream + " on the wrong queue pair";
            }
            if (mem.get(ValueLayout.JAVA_LONG, at + 8) != payload(stream, seq)
                    || mem.get(ValueLayout.JAVA_LONG, at + 16) != ~payload(seq, stream)) {
                return "payload of stream " + stream + " seq " + seq;
            }
            if (seq != next[stream]) {
                return "stream " + stream + " expected seq " + next[stream] + ", got " + seq
                        + (seq < next[stream] ? " (duplicate)" : " (lost messages)");
            }
            next[stream]++;
            return null;
        }

        private static void write(MemorySegment stage, ByteBuffer bytes, int at, int stream, long seq, CRC32 crc) {
            stage.set(ValueLayout.JAVA_LONG, at, seq);
            stage.set(ValueLayout.JAVA_LONG, at + 8, payload(stream, seq));
            stage.set(ValueLayout.JAVA_LONG, at + 16, ~payload(seq, stream));
            stage.set(ValueLayout.JAVA_INT, at + 24, stream);
            crc.reset();
            crc.update(bytes.clear().position(at).limit(at + 28));
            stage.set(ValueLayout.JAVA_INT, at + 28, (int) crc.getValue());
        }

        private static long payload(long a, long b) {
            return (a * 0x9E3779B97F4A7C15L) ^ Long.rotateLeft(b, 17);
        }

        private static long receiveId(int pair, int slot) {
            return ((long) pair << 32) | slot;
        }

        private static long ringOffset(int pair, int slot) {
            return ((long) pair * RING + slot) * MESSAGE;
        }

        /**
         * Spin a little, then give the core away: Soft-RoCE does its work in kernel threads on these same CPUs (in an
         * emulated VM, on one host thread), so a busy waiter slows the very traffic it waits for.
         */
        private static void idle(long spins) {
            if (spins < 16) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }

        private void fail(String what) {
            failure.compareAndSet(null, what);
        }

        private void guard(ThrowingRunnable r) {
            try {
                r.run();
            } catch (Throwable t) {
                fail(Thread.currentThread().getName() + ": " + t);
            }
        }

        @Override
        public void close() throws Exception {
            for (QueuePair qp : senders) {
                qp.close();
            }
            for (QueuePair qp : receivers) {
                qp.close();
            }
            ring.close();
            staging.close();
            sendCq.close();
            recvCq.close();
            pd.close();
        }
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
