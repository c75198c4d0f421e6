package io.jrdma.endpoint;

import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.rdmacm.RemoteRegion;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The application's own memory in operations: registered once per arena segment, found again for its slices, and
 * kept registered and allocated until the operations on it complete, whoever closes its arena and when.
 */
@RdmaDeviceTest
class RegistrationCacheDeviceTest {
    private static final int CHUNK = 64 * 1024;
    private static final int CHUNKS = 16;

    private static WorkerPair pair(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        return new WorkerPair(ip, WorkerOptions.defaults(), WorkerOptions.defaults(), (e, m) -> m.release());
    }

    /** Memory for {@link #CHUNKS} chunks, aligned for the device. */
    private static MemorySegment chunks(Arena arena) {
        return arena.allocate((long) CHUNK * CHUNKS, 64);
    }

    private static long crc(MemorySegment s) {
        CRC32 crc = new CRC32();
        crc.update(s.asByteBuffer());
        return crc.getValue();
    }

    private static void pattern(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L + seed);
        }
    }

    @Test
    void registersOncePerSegmentAndRefusesWhatItCannotKeep(Device device) throws Exception {
        Arena other = Arena.ofShared();
        try (WorkerPair pair = pair(device); Arena arena = Arena.ofConfined()) {
            RegistrationCache cache = pair.client.registrations();
            MemorySegment memory = arena.allocate(CHUNK * 4L, 64);
            MemoryRegion whole = cache.regionOf(memory, arena);
            assertSame(whole, cache.regionOf(memory.asSlice(CHUNK, CHUNK), arena), "a slice has a registration");
            assertEquals(memory.address(), whole.address());
            MemorySegment elsewhere = other.allocate(CHUNK);
            assertNotSame(whole, cache.regionOf(elsewhere, other));
            assertEquals(2, cache.size());
            assertThrows(IllegalArgumentException.class, () -> cache.regionOf(elsewhere, arena));
            assertThrows(IllegalArgumentException.class,
                    () -> cache.regionOf(MemorySegment.ofArray(new byte[64]), arena));
            assertThrows(NullPointerException.class, () -> cache.regionOf(null, arena));
            other.close();
            assertEquals(1, cache.size(), "a closed arena's registration left the cache");
            assertThrows(IllegalStateException.class, () -> cache.regionOf(elsewhere, other));
        }
    }

    /** 16 reads of 64 KiB into an arena's memory, the arena closed from the test's thread right after posting. */
    @Test
    void anArenaClosedUnderOperationsWaitsForThemFromAnotherThread(Device device) throws Exception {
        try (WorkerPair pair = pair(device)) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            Arena arena = Arena.ofShared();
            MemorySegment target = chunks(arena);
            MemoryRegion region = pair.client.registrations().regionOf(target, arena);
            List<CompletableFuture<Long>> reads = new ArrayList<>();
            for (int i = 0; i < CHUNKS; i++) {
                reads.add(ep.read(region, (long) i * CHUNK, CHUNK, WorkerPair.remote(ep), (long) i * CHUNK));
            }
            arena.close();
            // A read that outlived its registration would fail on the deregistered key.
            for (CompletableFuture<Long> read : reads) {
                assertTrue(read.isDone(), "the arena closed with a read in flight");
                assertEquals(CHUNK, read.get(0, TimeUnit.SECONDS));
            }
            assertEquals(0, pair.client.registrations().size());
            assertTrue(ep.isOpen());
        }
    }

    /** A handler that closes the arena at the first of 16 writes' completions, on the worker's own thread. */
    @Test
    void anArenaClosedInAHandlerWaitsForTheRestOnTheWorkersThread(Device device) throws Exception {
        try (WorkerPair pair = pair(device)) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            RemoteRegion remote = WorkerPair.remote(ep);
            Arena arena = Arena.ofShared();
            MemorySegment source = chunks(arena);
            pattern(source, 11);
            long expected = crc(source);
            long[] results = new long[CHUNKS];
            CompletableFuture<Integer> completedWhenClosed = new CompletableFuture<>();
            OperationHandler<Integer> handler = new OperationHandler<>() {
                int completed;

                @Override
                public void completed(long value, Integer chunk) {
                    results[chunk] = value;
                    completed++;
                    if (completed == 1) {
                        arena.close();
                        completedWhenClosed.complete(completed);
                    }
                }

                @Override
                public void failed(Throwable failure, Integer chunk) {
                    results[chunk] = -1;
                    completed++;
                }
            };
            WorkerPair.on(pair.client, () -> {
                MemoryRegion region = pair.client.registrations().regionOf(source, arena);
                for (int i = 0; i < CHUNKS; i++) {
                    assertTrue(ep.tryWrite(region, (long) i * CHUNK, CHUNK, remote, (long) i * CHUNK, handler, i));
                }
                return null;
            });
            assertEquals(CHUNKS, completedWhenClosed.get(60, TimeUnit.SECONDS),
                    "the arena's close returned before every write completed");
            for (int i = 0; i < CHUNKS; i++) {
                assertEquals(CHUNK, results[i], "write " + i);
            }
            assertEquals(expected, crc(pair.exposed.segment().asSlice(0, (long) CHUNK * CHUNKS)));
        }
    }
}
