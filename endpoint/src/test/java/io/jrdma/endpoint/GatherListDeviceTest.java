package io.jrdma.endpoint;

import io.jrdma.endpoint.RendezvousDeviceTest.Recorder;
import io.jrdma.endpoint.RendezvousDeviceTest.Seen;
import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.jrdma.endpoint.RendezvousDeviceTest.awaitSeen;
import static io.jrdma.endpoint.RendezvousDeviceTest.crc;
import static io.jrdma.endpoint.RendezvousDeviceTest.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Gather lists: pieces of several regions arrive as one message, byte for byte in the order they were added, whether
 * inline, in one receive buffer or by rendezvous; a list is the sender's to refill once the call returns; bad lists
 * are refused before anything is posted.
 */
@RdmaDeviceTest
class GatherListDeviceTest {

    /** The pieces' bytes one after another: what the receiver must see. */
    private static long crcOf(List<MemorySegment> pieces) {
        try (Arena arena = Arena.ofConfined()) {
            long total = pieces.stream().mapToLong(MemorySegment::byteSize).sum();
            MemorySegment whole = arena.allocate(total);
            long at = 0;
            for (MemorySegment p : pieces) {
                MemorySegment.copy(p, 0, whole, at, p.byteSize());
                at += p.byteSize();
            }
            return crc(whole);
        }
    }

    @Test
    void piecesOfSeveralRegionsArriveAsOneMessage(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        Recorder recorder = new Recorder();
        WorkerOptions options = WorkerOptions.defaults().withCredits(8, 4).withGatherPieces(GatherList.MAX_PIECES);
        try (WorkerPair pair = new WorkerPair(ip, options, options, recorder);
             Arena arena = Arena.ofShared()) {
            assertEquals(GatherList.MAX_PIECES, pair.client.maxGatherPieces());
            Endpoint ep = pair.connect((e, m) -> m.release());
            MemorySegment own = arena.allocate(1 << 20, 4096);
            fill(own, 7);
            MemoryRegion ownRegion = pair.client.protectionDomain().register(own, arena, Access.LOCAL_WRITE);
            Buffer pooled = pair.client.buffers().allocate(1 << 20);
            fill(pooled.segment(), 3);
            // {piece lengths}: inline (under 64 bytes), within one receive buffer (4 KiB), by rendezvous, and as many
            // pieces as a list holds, some of one byte.
            int[][] shapes = {{5, 20, 7}, {1000, 24, 3000, 72}, {70_000, 1, 200_000, 4095},
                {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, {3000, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                    1, 100_000}};
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            List<Seen> expected = new ArrayList<>();
            GatherList list = new GatherList();
            for (int s = 0; s < shapes.length; s++) {
                list.clear();
                List<MemorySegment> pieces = new ArrayList<>();
                long at = 17L * s;
                for (int i = 0; i < shapes[s].length; i++) {
                    int n = shapes[s][i];
                    boolean mine = i % 2 == 0;
                    MemoryRegion r = mine ? ownRegion : pooled.region();
                    long offset = mine ? at : pooled.offset() + at;
                    list.add(r, offset, n);
                    pieces.add((mine ? own : pooled.segment()).asSlice(at, n));
                    at = (at + n + 13) % ((1 << 20) - 200_000);
                }
                int length = list.length();
                if (s % 2 == 0) {
                    sends.add(ep.send(list));
                } else {
                    CompletableFuture<Long> done = new CompletableFuture<>();
                    assertTrue(WorkerPair.on(pair.client, () -> ep.trySend(list, Endpoint.FUTURE, done)));
                    sends.add(done);
                }
                expected.add(new Seen(length, -1, crcOf(pieces)));
            }
            for (int i = 0; i < sends.size(); i++) {
                assertEquals(expected.get(i).length(), sends.get(i).get(120, TimeUnit.SECONDS), "message " + i);
            }
            awaitSeen(recorder, expected.size());
            assertEquals(expected, List.copyOf(recorder.seen));
            assertTrue(ep.isOpen());
            pooled.close();
        }
    }

    /** The endpoint copies the list: refilled as soon as {@code send} returns, the message is still the first. */
    @Test
    void aListRefilledAtOnceDoesNotChangeTheMessage(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        Recorder recorder = new Recorder();
        try (WorkerPair pair = new WorkerPair(ip, WorkerOptions.defaults(), WorkerOptions.defaults(), recorder);
             Buffer a = pair.client.buffers().allocate(3000);
             Buffer b = pair.client.buffers().allocate(3000)) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            fill(a.segment(), 1);
            fill(b.segment(), 2);
            GatherList list = new GatherList();
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            List<Seen> expected = new ArrayList<>();
            for (int i = 0; i < 64; i++) {   // more than the credits, so that the backlog holds some of them
                Buffer first = i % 2 == 0 ? a : b;
                Buffer second = i % 2 == 0 ? b : a;
                list.clear().add(first.region(), first.offset() + i, 1000).add(second.region(), second.offset(), 500);
                sends.add(ep.send(list));
                expected.add(new Seen(1500, -1, crcOf(List.of(first.segment().asSlice(i, 1000),
                        second.segment().asSlice(0, 500)))));
                list.clear().add(second.region(), second.offset() + 7, 9);   // what the message must not become
            }
            for (CompletableFuture<Long> send : sends) {
                assertEquals(1500, send.get(60, TimeUnit.SECONDS));
            }
            awaitSeen(recorder, expected.size());
            assertEquals(expected, List.copyOf(recorder.seen));
        }
    }

    @Test
    void badListsAreRefusedBeforeAnythingIsPosted(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        Recorder recorder = new Recorder();
        try (WorkerPair pair = new WorkerPair(ip, WorkerOptions.defaults(), WorkerOptions.defaults(), recorder);
             Buffer b = pair.client.buffers().allocate(4096);
             ProtectionDomain otherPd = pair.client.protectionDomain().context().allocateProtectionDomain();
             MemoryRegion foreign = otherPd.allocate(4096, Access.LOCAL_WRITE)) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            GatherList list = new GatherList();
            assertThrows(IllegalArgumentException.class, () -> ep.send(list));
            assertThrows(IllegalArgumentException.class, () -> list.add(b.region(), b.offset(), 0));
            assertThrows(IllegalArgumentException.class, () -> list.add(b.region(), -1, 10));
            assertThrows(IllegalArgumentException.class, () -> list.add(b.region(), b.region().length() - 10, 11));
            assertThrows(NullPointerException.class, () -> list.add(null, 0, 10));
            for (int i = 0; i < GatherList.MAX_PIECES; i++) {
                list.add(b.region(), b.offset() + i, 1);
            }
            assertThrows(IllegalArgumentException.class, () -> list.add(b.region(), b.offset(), 1));
            assertEquals(GatherList.MAX_PIECES, list.size());
            // A worker with the default options gathers 4 pieces: a full list is refused, as a fifth piece is.
            assertEquals(4, pair.client.maxGatherPieces());
            assertThrows(IllegalArgumentException.class, () -> ep.send(list));
            list.clear().add(b.region(), b.offset(), 10).add(foreign, 0, 10);
            assertThrows(IllegalArgumentException.class, () -> ep.send(list));
            assertThrows(IllegalArgumentException.class,
                    () -> WorkerPair.on(pair.client, () -> ep.trySend(list, null, null)));
            MemoryRegion huge = pair.client.protectionDomain().allocate(Rendezvous.MAX_MESSAGE, Access.LOCAL_WRITE);
            try {
                list.clear().add(huge, 0, Rendezvous.MAX_MESSAGE);
                assertThrows(IllegalArgumentException.class, () -> list.add(b.region(), b.offset(), 1));
            } finally {
                list.clear();
                huge.close();
            }
            // The endpoint is intact after all of it.
            fill(b.segment().asSlice(0, 100), 9);
            assertEquals(100, ep.send(list.add(b.region(), b.offset(), 100)).get(60, TimeUnit.SECONDS));
            awaitSeen(recorder, 1);
            assertEquals(new Seen(100, -1, crc(b.segment().asSlice(0, 100))), recorder.seen.peek());
            assertTrue(ep.isOpen());
            assertFalse(ep.isClosedByPeer());
        }
    }
}
