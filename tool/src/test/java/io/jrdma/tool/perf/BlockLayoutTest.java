package io.jrdma.tool.perf;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The layout's arithmetic, its CPU gather and scatter, and the checker that must catch every wrong byte. */
class BlockLayoutTest {
    private static final BlockLayout LAYOUT = new BlockLayout(16, 4, 40);
    private static final long SEED = 1234;

    @Test
    void spanPayloadAndExtent() {
        assertEquals(3 * 40 + 16, LAYOUT.span());
        assertEquals(64, LAYOUT.payload());
        assertEquals(LAYOUT.span() + BlockLayout.GUARD, LAYOUT.extent());
        assertEquals(new BlockLayout(16, 4, 16), LAYOUT.contiguous());
        assertEquals(120, LAYOUT.offset(3));
    }

    @Test
    void packingThenUnpackingMovesEveryBlockAndNoGap() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mem = arena.allocate(1024);
            LAYOUT.fill(mem, 0, SEED);
            LAYOUT.contiguous().clear(mem, 300);
            LAYOUT.pack(mem, 0, 300);
            assertNull(LAYOUT.contiguous().check(mem, 300, SEED));
            LAYOUT.clear(mem, 600);
            LAYOUT.unpack(mem, 300, 600);
            assertNull(LAYOUT.check(mem, 600, SEED));
        }
    }

    @Test
    void aStridedLayoutWithNoGapsIsContiguous() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mem = arena.allocate(256);
            BlockLayout packed = LAYOUT.contiguous();
            packed.fill(mem, 0, SEED);
            assertNull(packed.check(mem, 0, SEED));
        }
    }

    @Test
    void aByteWrittenIntoAGapFails() {
        String wrong = corrupted(40 - 1, (byte) 0);   // the last gap byte before block 1
        assertTrue(wrong.startsWith("gap byte 23 after block 0 (offset 39)"), wrong);
        assertTrue(wrong.contains("something wrote outside the blocks"), wrong);
    }

    @Test
    void aByteWrittenPastTheLastBlockFails() {
        String wrong = corrupted(LAYOUT.span() + 5, (byte) 0);
        assertTrue(wrong.startsWith("byte 5 after the last block"), wrong);
    }

    @Test
    void aWrongByteInABlockFails() {
        String wrong = corrupted(2 * 40 + 7, (byte) 0);
        assertTrue(wrong.startsWith("byte 7 of block 2 (offset 87)"), wrong);
    }

    @Test
    void staleDataOfAnotherMessageFails() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mem = arena.allocate(LAYOUT.extent());
            LAYOUT.fill(mem, 0, SEED - 1);
            String wrong = LAYOUT.check(mem, 0, SEED);
            assertNotNull(wrong);
            assertTrue(wrong.contains("of block 0") && wrong.contains("(data " + SEED + ")"), wrong);
        }
    }

    @Test
    void blocksThatNeverArrivedOrCameInTheWrongOrderFail() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mem = arena.allocate(1024);
            LAYOUT.clear(mem, 0);
            assertNotNull(LAYOUT.check(mem, 0, SEED), "nothing arrived");
            LAYOUT.fill(mem, 0, SEED);
            MemorySegment.copy(mem, LAYOUT.offset(1), mem, LAYOUT.offset(3), LAYOUT.blockSize());
            String wrong = LAYOUT.check(mem, 0, SEED);
            assertTrue(wrong.contains("of block 3"), wrong);
        }
    }

    @Test
    void eachBlockHoldsOtherBytesThanTheOthers() {
        for (int b = 1; b < 4; b++) {
            int same = 0;
            for (int i = 0; i < 256; i++) {
                same += BlockLayout.pattern(SEED, 0, i) == BlockLayout.pattern(SEED, b, i) ? 1 : 0;
            }
            assertTrue(same < 16, "block " + b + " repeats block 0 in " + same + " of 256 bytes");
        }
    }

    /** The check of a right destination after byte {@code at} was overwritten with {@code value}. */
    private static String corrupted(long at, byte value) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mem = arena.allocate(LAYOUT.extent());
            LAYOUT.fill(mem, 0, SEED);
            assertNull(LAYOUT.check(mem, 0, SEED));
            byte old = mem.get(ValueLayout.JAVA_BYTE, at);
            mem.set(ValueLayout.JAVA_BYTE, at, (byte) (value == old ? ~value : value));
            String wrong = LAYOUT.check(mem, 0, SEED);
            assertNotNull(wrong, "offset " + at);
            return wrong;
        }
    }
}
