package io.jrdma.endpoint;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Messages larger than the peer's receive buffers go by rendezvous: advertised, invited by the receiver, written.
 * Every byte is checked, and so is the order of large and small messages mixed on one endpoint.
 */
@RdmaDeviceTest
class RendezvousDeviceTest {
    /** What the receiver saw of one message: its length, immediate value (or -1) and CRC. */
    record Seen(int length, int immediate, long crc) {
    }

    /** Records every message and releases it at once. */
    static final class Recorder implements EndpointHandler {
        final ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage m) {
            seen.add(new Seen(m.length(), m.hasImmediate() ? m.immediate() : -1,
                    crc(m.segment().asSlice(0, m.length()))));
            m.release();
        }
    }

    static long crc(MemorySegment s) {
        CRC32 crc = new CRC32();
        crc.update(s.asByteBuffer());
        return crc.getValue();
    }

    static void fill(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed + i / 4093));
        }
    }

    static void awaitSeen(Recorder r, int count) throws InterruptedException {
        for (int i = 0; i < 12000 && r.seen.size() < count; i++) {
            Thread.sleep(10);
        }
        assertEquals(count, r.seen.size());
    }

    @Test
    void largeAndSmallMessagesArriveWholeAndInOrder(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        Recorder recorder = new Recorder();
        WorkerOptions options = WorkerOptions.defaults().withCredits(8, 4);
        try (WorkerPair pair = new WorkerPair(ip, options, options, recorder)) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            // Sizes around the receive buffer (4 KiB) and up to the largest; a small message after each.
            int[] sizes = {4097, 5000, 65536, 1 << 20, 100_000, 1 << 24, 8191, 3 << 20};
            List<Buffer> buffers = new ArrayList<>();
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            List<Seen> expected = new ArrayList<>();
            for (int i = 0; i < sizes.length; i++) {
                Buffer large = pair.client.buffers().allocate(sizes[i]);
                fill(large.segment().asSlice(0, sizes[i]), i);
                Buffer small = pair.client.buffers().allocate(64);
                fill(small.segment().asSlice(0, 64), 100 + i);
                buffers.add(large);
                buffers.add(small);
                boolean immediate = i % 2 == 1;
                sends.add(immediate ? ep.sendWithImmediate(large.region(), large.offset(), sizes[i], 1000 + i)
                        : ep.send(large.region(), large.offset(), sizes[i]));
                sends.add(ep.send(small.region(), small.offset(), 64));
                expected.add(new Seen(sizes[i], immediate ? 1000 + i : -1, crc(large.segment().asSlice(0, sizes[i]))));
                expected.add(new Seen(64, -1, crc(small.segment().asSlice(0, 64))));
            }
            for (int i = 0; i < sends.size(); i++) {
                assertEquals(expected.get(i).length(), sends.get(i).get(120, TimeUnit.SECONDS), "message " + i);
            }
            awaitSeen(recorder, expected.size());
            assertEquals(expected, List.copyOf(recorder.seen));
            buffers.forEach(Buffer::close);
            assertTrue(ep.isOpen());
        }
    }

    /** A peer that grants one credit leaves none to keep for a done ring: a large message is refused, nothing posted. */
    @Test
    void aLargeMessageToAPeerGrantingOneCreditIsRefused(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        Recorder recorder = new Recorder();
        WorkerOptions server = WorkerOptions.defaults().withCredits(1, 4);
        try (WorkerPair pair = new WorkerPair(ip, server, WorkerOptions.defaults(), recorder);
             Buffer b = pair.client.buffers().allocate(1 << 16)) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> ep.send(b.region(), b.offset(), 1 << 16).get(60, TimeUnit.SECONDS));
            assertInstanceOf(IllegalArgumentException.class, refused.getCause());
            fill(b.segment().asSlice(0, 64), 1);
            assertEquals(64, ep.send(b.region(), b.offset(), 64).get(60, TimeUnit.SECONDS));
            awaitSeen(recorder, 1);
            assertEquals(new Seen(64, -1, crc(b.segment().asSlice(0, 64))), recorder.seen.peek());
            assertTrue(ep.isOpen());
        }
    }

    /**
     * A receiver bounds the memory its peer's large messages hold: with 16 MiB per endpoint and two 6 MiB messages
     * unreleased, the third is not invited (its send does not complete) until the application releases one.
     */
    @Test
    void largeMessagesWaitForTheReceiversRendezvousMemory(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        LinkedBlockingQueue<ReceivedMessage> held = new LinkedBlockingQueue<>();
        WorkerOptions server = WorkerOptions.defaults().withCredits(8, 4).withRendezvousMemory(16 << 20);
        WorkerOptions client = WorkerOptions.defaults().withCredits(8, 4);
        int size = 6 << 20;
        try (WorkerPair pair = new WorkerPair(ip, server, client, (e, m) -> held.add(m))) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            List<Buffer> buffers = new ArrayList<>();
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            List<Seen> expected = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                for (int length : new int[] {size, 64}) {
                    Buffer b = pair.client.buffers().allocate(length);
                    fill(b.segment().asSlice(0, length), 10 * i + length);
                    buffers.add(b);
                    sends.add(ep.send(b.region(), b.offset(), length));
                    expected.add(new Seen(length, -1, crc(b.segment().asSlice(0, length))));
                }
            }
            List<Seen> seen = new ArrayList<>();
            List<ReceivedMessage> first = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                assertEquals(expected.get(i).length(), sends.get(i).get(120, TimeUnit.SECONDS), "message " + i);
                ReceivedMessage m = held.poll(120, TimeUnit.SECONDS);
                seen.add(new Seen(m.length(), -1, crc(m.segment().asSlice(0, m.length()))));
                first.add(m);
            }
            Thread.sleep(1000);
            assertFalse(sends.get(4).isDone(), "a third large message was invited beyond 16 MiB held");
            first.getFirst().release();
            for (int i = 4; i < 6; i++) {
                assertEquals(expected.get(i).length(), sends.get(i).get(120, TimeUnit.SECONDS), "message " + i);
                ReceivedMessage m = held.poll(120, TimeUnit.SECONDS);
                seen.add(new Seen(m.length(), -1, crc(m.segment().asSlice(0, m.length()))));
                m.release();
            }
            first.subList(1, 4).forEach(ReceivedMessage::release);
            assertEquals(expected, seen);
            buffers.forEach(Buffer::close);
            assertTrue(ep.isOpen());
        }
    }

    /**
     * Both ways at once, with few credits: every message echoed back, every tenth large. The receiver keeps what
     * arrives behind a large message in order, and must not keep the credits the sender needs to complete it.
     */
    @Test
    void largeAndSmallMessagesEchoedBothWaysWithFewCredits(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(4, 4);
        EndpointHandler echo = (endpoint, m) -> {
            try {
                int length = m.length();
                Buffer reply = endpoint.worker().buffers().allocate(length);
                MemorySegment.copy(m.segment(), 0, reply.segment(), 0, length);
                m.release();
                endpoint.send(reply.region(), reply.offset(), length).whenComplete((n, failure) -> reply.close());
            } catch (Exception e) {
                endpoint.abort();
            }
        };
        Recorder recorder = new Recorder();
        try (WorkerPair pair = new WorkerPair(ip, options, options, echo)) {
            Endpoint ep = pair.connect(recorder);
            int count = 300;
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            List<Seen> expected = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int length = i % 10 == 0 ? 6000 + i * 37 % 14000 : 1 + i * 131 % 4096;
                Buffer b = pair.client.buffers().allocate(length);
                fill(b.segment().asSlice(0, length), i);
                expected.add(new Seen(length, -1, crc(b.segment().asSlice(0, length))));
                CompletableFuture<Long> sent = ep.send(b.region(), b.offset(), length);
                sent.whenComplete((n, failure) -> b.close());
                sends.add(sent);
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(300, TimeUnit.SECONDS);
            awaitSeen(recorder, count);
            assertEquals(expected, List.copyOf(recorder.seen));
            assertTrue(ep.isOpen());
        }
    }

    @Test
    void manyLargeMessagesInFlightFromArenaMemory(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        Recorder recorder = new Recorder();
        WorkerOptions options = WorkerOptions.defaults().withCredits(8, 4).withDepths(32, 4);
        int count = 96;
        int size = 20_000;
        try (WorkerPair pair = new WorkerPair(ip, options, options, recorder); Arena arena = Arena.ofShared()) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            MemorySegment memory = arena.allocate((long) count * size, 64);
            fill(memory, 5);
            MemoryRegion region = pair.client.registrations().regionOf(memory, arena);
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            List<Seen> expected = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                long offset = memory.address() - region.address() + (long) i * size;
                sends.add(ep.send(region, offset, size));
                expected.add(new Seen(size, -1, crc(memory.asSlice((long) i * size, size))));
            }
            for (CompletableFuture<Long> send : sends) {
                assertEquals(size, send.get(120, TimeUnit.SECONDS));
            }
            awaitSeen(recorder, count);
            assertEquals(expected, List.copyOf(recorder.seen));
        }
    }

    @Test
    void whatRendezvousCannotCarryIsRefusedBeforeAnythingIsPostedAndLocalMemoryIsEnough(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        Recorder recorder = new Recorder();
        try (WorkerPair pair = new WorkerPair(ip, WorkerOptions.defaults(), WorkerOptions.defaults(), recorder);
             MemoryRegion plain = pair.client.protectionDomain().allocate(1 << 16, Access.LOCAL_WRITE)) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            // Local access is all a large message's memory needs: it is written from there, never exposed.
            fill(plain.segment(), 3);
            assertEquals(1 << 16, ep.send(plain, 0, 1 << 16).get(60, TimeUnit.SECONDS));
            awaitSeen(recorder, 1);
            assertEquals(new Seen(1 << 16, -1, crc(plain.segment())), recorder.seen.poll());
            assertThrows(IllegalArgumentException.class, () -> ep.send(plain, 0, 0), "a message of no bytes");
            try (Buffer big = pair.client.buffers().allocate(1 << 24)) {
                assertThrows(IllegalArgumentException.class,
                        () -> ep.send(big.region(), big.offset(), (1 << 24) + 1), "beyond the largest message");
            }
            // The endpoint goes on: a message of no bytes with an immediate value is the application's.
            assertEquals(0, ep.sendWithImmediate(plain, 0, 0, 7).get(60, TimeUnit.SECONDS));
            awaitSeen(recorder, 1);
            assertEquals(new Seen(0, 7, crc(MemorySegment.ofArray(new byte[0]))), recorder.seen.peek());
            assertTrue(ep.isOpen());
        }
    }
}
