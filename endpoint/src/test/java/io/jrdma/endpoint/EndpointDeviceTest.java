package io.jrdma.endpoint;

import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.rdmacm.RemoteRegion;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Endpoints on rxe0: every operation with many in flight, credits, failures, bad input. */
@RdmaDeviceTest
class EndpointDeviceTest {
    private static final ValueLayout.OfLong LE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Checks messages as they come: a sequence number first, then bytes that follow from it; releases each. */
    static final class CheckingReceiver implements EndpointHandler {
        final AtomicLong messages = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Integer> immediates = new ConcurrentLinkedQueue<>();
        private long expected;

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage m) {
            if (m.hasImmediate()) {
                immediates.add(m.immediate());
            }
            if (!m.isRemoteWrite()) {
                MemorySegment s = m.segment();
                long seq = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                if (seq != expected) {
                    errors.add("message " + seq + " came where " + expected + " was due");
                }
                expected = seq + 1;
                for (int i = 8; i < m.length(); i++) {
                    if (s.get(ValueLayout.JAVA_BYTE, i) != (byte) (seq * 31 + i)) {
                        errors.add("message " + seq + " differs at byte " + i);
                        break;
                    }
                }
                bytes.addAndGet(m.length());
                m.release();
            }
            messages.incrementAndGet();
        }
    }

    static void fill(MemorySegment s, long seq, int length) {
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
        for (int i = 8; i < length; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (seq * 31 + i));
        }
    }

    static void awaitCount(AtomicLong count, long target) throws InterruptedException {
        for (int i = 0; i < 6000 && count.get() < target; i++) {
            Thread.sleep(10);
        }
        assertEquals(target, count.get());
    }

    /**
     * A handler that progresses its worker itself (as one that waits for something of its own may) still gets its
     * endpoint's messages in order: the completions the worker polled around it come before the newer ones.
     */
    @Test
    void aHandlerThatProgressesItsWorkerStillGetsMessagesInOrder(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        CheckingReceiver checking = new CheckingReceiver();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        WorkerOptions options = WorkerOptions.defaults().withCredits(32, 4);
        try (WorkerPair pair = new WorkerPair(ip, options, options, checking)) {
            pair.acceptor = pair.accepting((e, m) -> {
                boolean progress = m.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0) % 50 == 0;
                checking.onMessage(e, m);
                if (progress) {
                    try {
                        pair.server.progress();
                    } catch (Exception | Error failure) {
                        failures.add(failure);
                    }
                }
            });
            Endpoint ep = pair.connect((e, m) -> m.release());
            int count = 3000;
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            try (Buffer b = pair.client.buffers().allocate(16 * count)) {
                for (int i = 0; i < count; i++) {
                    fill(b.segment().asSlice(16L * i, 16), i, 16);
                    sends.add(ep.send(b.region(), b.offset() + 16L * i, 16));
                }
                for (CompletableFuture<Long> f : sends) {
                    f.get(60, TimeUnit.SECONDS);
                }
            }
            awaitCount(checking.messages, count);
            assertEquals(List.of(), List.copyOf(failures));
            assertEquals(List.of(), List.copyOf(checking.errors));
        }
    }

    /**
     * An echo that sends each message back from where it was received, a receive buffer's or (a large message) a
     * pooled buffer's, releasing it when that send completes: every message comes back whole, in order. A message of
     * one worker is memory of another domain to the other's endpoints, and a released one has no region to send.
     */
    @Test
    void aReceivedMessageIsSentOnFromWhereItLies(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        CheckingReceiver echoed = new CheckingReceiver();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CompletableFuture<ReceivedMessage> kept = new CompletableFuture<>();
        OperationHandler<ReceivedMessage> release = new OperationHandler<>() {
            @Override
            public void completed(long value, ReceivedMessage m) {
                m.release();
            }

            @Override
            public void failed(Throwable failure, ReceivedMessage m) {
                failures.add(failure);
                m.release();
            }
        };
        WorkerOptions options = WorkerOptions.defaults().withCredits(8, 4);
        int size = options.messageSize();
        try (WorkerPair pair = new WorkerPair(ip, options, options, null)) {
            pair.acceptor = pair.accepting((e, m) -> {
                if (kept.complete(m)) {
                    return;   // the first, held to be tried on the other worker
                }
                try {
                    if (!e.trySend(m.region(), m.offset(), m.length(), release, m)) {
                        failures.add(new AssertionError("no credit for an echo in lock-step"));
                        m.release();
                    }
                } catch (Exception | Error failure) {
                    failures.add(failure);
                    m.release();
                }
            });
            Endpoint ep = pair.connect(echoed);
            int[] sizes = {16, size, 3 * size + 5};
            try (Buffer b = pair.client.buffers().allocate(3 * size + 5)) {
                ep.send(b.region(), b.offset(), 8).get(60, TimeUnit.SECONDS);
                for (int i = 0; i < 60; i++) {
                    int length = sizes[i % sizes.length];
                    fill(b.segment(), i, length);
                    ep.send(b.region(), b.offset(), length).get(60, TimeUnit.SECONDS);
                    awaitCount(echoed.messages, i + 1);   // one at a time: the echoes never wait for a credit
                }
            }
            assertEquals(List.of(), List.copyOf(failures));
            assertEquals(List.of(), List.copyOf(echoed.errors));

            ReceivedMessage m = kept.get(60, TimeUnit.SECONDS);
            assertEquals(8, m.length());
            assertThrows(IllegalArgumentException.class, () -> WorkerPair.on(pair.client,
                    () -> ep.trySend(m.region(), m.offset(), m.length(), release, m)));
            m.release();
            assertThrows(IllegalStateException.class, m::region);
        }
    }

    @Test
    void everyOperationWithTheQueueFullChecked(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        CheckingReceiver receiver = new CheckingReceiver();
        WorkerOptions options = WorkerOptions.defaults().withCredits(16, 8).withDepths(32, 8);
        try (WorkerPair pair = new WorkerPair(ip, options, options, receiver)) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            RemoteRegion remote = WorkerPair.remote(ep);

            // 2000 checked messages of 8 B to 4 KiB, all submitted at once: the backlog keeps the queue full.
            int count = 2000;
            List<Buffer> buffers = new ArrayList<>();
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            long total = 0;
            for (int i = 0; i < count; i++) {
                int length = 8 + (i * 977) % 4089;
                Buffer b = pair.client.buffers().allocate(length);
                fill(b.segment(), i, length);
                buffers.add(b);
                total += length;
                sends.add(ep.send(b.region(), b.offset(), length));
            }
            for (int i = 0; i < count; i++) {
                assertEquals(8 + (i * 977) % 4089, sends.get(i).get(60, TimeUnit.SECONDS));
            }
            awaitCount(receiver.messages, count);
            assertEquals(List.of(), List.copyOf(receiver.errors));
            assertEquals(total, receiver.bytes.get());
            buffers.forEach(Buffer::close);

            // 256 writes of 4 KiB into the server's region, then read back into another region and compared.
            MemoryRegion local = pair.client.protectionDomain().allocate(WorkerPair.EXPOSED,
                    io.jrdma.ibverbs.Access.LOCAL_WRITE);
            try (local) {
                for (int i = 0; i < WorkerPair.EXPOSED; i++) {
                    local.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + i / 4096));
                }
                long completionsBefore = requestCompletions(pair.client);
                List<CompletableFuture<Long>> ops = new ArrayList<>();
                for (int i = 0; i < 256; i++) {
                    ops.add(ep.write(local, i * 4096L, 4096, remote, i * 4096L));
                }
                for (CompletableFuture<Long> f : ops) {
                    assertEquals(4096L, f.get(60, TimeUnit.SECONDS));
                }
                // Selective signaling: with the queue full, one write in a quarter of the send depth is signaled,
                // and its completion completes the writes before it.
                long completions = requestCompletions(pair.client) - completionsBefore;
                assertTrue(completions < 256 / 2, "256 writes took " + completions + " completions");
                assertEquals(crc(local.segment()), crc(pair.exposed.segment()));
                local.segment().fill((byte) 0);
                ops.clear();
                for (int i = 0; i < 256; i++) {
                    ops.add(ep.read(local, i * 4096L, 4096, remote, i * 4096L));
                }
                for (CompletableFuture<Long> f : ops) {
                    assertEquals(4096L, f.get(60, TimeUnit.SECONDS));
                }
                assertEquals(crc(pair.exposed.segment()), crc(local.segment()));
            }

            // Atomics count exactly: 1000 fetch-and-adds see every value from 0 to 999 once.
            pair.exposed.segment().set(ValueLayout.JAVA_LONG, 0, 0L);
            List<CompletableFuture<Long>> adds = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                adds.add(ep.fetchAndAdd(remote, 0, 1));
            }
            Set<Long> seen = new HashSet<>();
            for (CompletableFuture<Long> f : adds) {
                seen.add(f.get(60, TimeUnit.SECONDS));
            }
            assertEquals(1000, seen.size());
            for (long v = 0; v < 1000; v++) {
                assertTrue(seen.contains(v), "fetch-and-add saw " + v);
            }
            assertEquals(1000L, pair.exposed.segment().get(ValueLayout.JAVA_LONG, 0));
            // Compare-and-swap: a wrong expectation changes nothing, a right one swaps.
            assertEquals(1000L, ep.compareAndSwap(remote, 0, 5, 77).get(30, TimeUnit.SECONDS));
            assertEquals(1000L, ep.compareAndSwap(remote, 0, 1000, 77).get(30, TimeUnit.SECONDS));
            assertEquals(77L, pair.exposed.segment().get(ValueLayout.JAVA_LONG, 0));

            // Immediates: with a message, and with a write (which the server hears of as a message of no bytes).
            try (Buffer b = pair.client.buffers().allocate(64)) {
                fill(b.segment(), count, 64);
                ep.sendWithImmediate(b.region(), b.offset(), 64, 0x1234).get(30, TimeUnit.SECONDS);
                ep.writeWithImmediate(b.region(), b.offset(), 64, remote, 8192, 0x5678).get(30, TimeUnit.SECONDS);
            }
            awaitCount(receiver.messages, count + 2);
            assertEquals(List.of(0x1234, 0x5678), List.copyOf(receiver.immediates));
            assertEquals(List.of(), List.copyOf(receiver.errors));
            ep.close();
            ep.closeFuture().get(30, TimeUnit.SECONDS);
        }
    }

    /** The worker's {@link Worker#requestCompletions()}, read on its thread. */
    static long requestCompletions(Worker worker) throws Exception {
        CompletableFuture<Long> count = new CompletableFuture<>();
        worker.execute(() -> count.complete(worker.requestCompletions()));
        return count.get(30, TimeUnit.SECONDS);
    }

    static long crc(MemorySegment s) {
        CRC32 crc = new CRC32();
        crc.update(s.asByteBuffer());
        return crc.getValue();
    }
}
