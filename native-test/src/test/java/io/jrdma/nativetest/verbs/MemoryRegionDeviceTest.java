package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Registration of native memory, its lifetime rules and its parent/child rule, on a real device. */
@RdmaDeviceTest
class MemoryRegionDeviceTest {

    @Test
    void registersArenaMemoryZeroCopyAndDeregistersWhenTheArenaCloses(Context ctx) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain()) {
            MemoryRegion mr;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment buf = arena.allocate(8192, 4096);
                mr = pd.register(buf, arena, Access.LOCAL_WRITE, Access.REMOTE_READ);
                assertEquals(buf.address(), mr.address(), "zero copy: the region is the segment");
                assertEquals(8192, mr.length());
                assertNotEquals(0, mr.localKey());
                assertEquals(Set.of(Access.LOCAL_WRITE, Access.REMOTE_READ), mr.access());
                assertThrows(IllegalStateException.class, pd::close, "a PD with a live MR does not close");
            }
            assertTrue(mr.isClosed(), "closing the arena deregistered the region first");
            assertThrows(IllegalStateException.class, mr::remoteKey);
        }
    }

    @Test
    void registersAMemoryMappedFile(Context ctx, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("data");
        Files.write(file, new byte[1 << 16]);
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
             Arena arena = Arena.ofShared()) {
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, 1 << 16, arena);
            MemoryRegion mr = pd.register(mapped, arena, Access.LOCAL_WRITE);
            assertEquals(1 << 16, mr.length());
            mr.close();
        }
    }

    @Test
    void relaxedOrderingGoesThroughTheOptionalAccessPath(Context ctx) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE, Access.RELAXED_ORDERING)) {
            assertTrue(mr.access().contains(Access.RELAXED_ORDERING));
            assertNotEquals(0, mr.localKey());
        }
    }

    @Test
    void refusesHeapEmptyForeignAndInconsistentRequestsBeforeAnyNativeCall(Context ctx) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain(); Arena arena = Arena.ofConfined();
             Arena other = Arena.ofConfined()) {
            IllegalArgumentException heap = assertThrows(IllegalArgumentException.class,
                    () -> pd.register(MemorySegment.ofArray(new byte[64]), arena, Access.LOCAL_WRITE));
            assertTrue(heap.getMessage().startsWith("heap segments cannot be registered"), heap.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> pd.register(arena.allocate(0), arena, Access.LOCAL_WRITE));
            assertThrows(IllegalArgumentException.class,
                    () -> pd.register(other.allocate(64), arena, Access.LOCAL_WRITE), "wrong owner arena");
            assertThrows(IllegalArgumentException.class, () -> pd.allocate(64, Access.REMOTE_WRITE),
                    "remote write without local write");
            assertThrows(IllegalArgumentException.class, () -> pd.allocate(0));
        }
    }

    @Test
    void closeIsIdempotentAndChildrenCloseBeforeParents(Context ctx) throws Exception {
        ProtectionDomain pd = ctx.allocateProtectionDomain();
        MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE);
        IllegalStateException busy = assertThrows(IllegalStateException.class, pd::close);
        assertTrue(busy.getMessage().contains("MemoryRegion"), busy.getMessage());
        assertFalse(pd.isClosed(), "nothing closed");
        mr.close();
        mr.close();
        pd.close();
        pd.close();
        assertThrows(IllegalStateException.class, () -> pd.allocate(64, Access.LOCAL_WRITE));
    }
}
