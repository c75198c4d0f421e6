package io.jrdma.tool.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * Data laid out in blocks, as in the verbs course's non-contiguous assignment: {@code blocks} blocks of
 * {@code blockSize} bytes, each starting {@code stride} bytes after the one before. The bytes between two blocks (the
 * gaps) belong to someone else: whatever moves the blocks must leave them alone.
 *
 * <p>Blocks carry a known pattern that depends on a seed, the block and the byte's place in it, so the same data has
 * the same bytes strided or packed; everything else (gaps, and a guard of {@value #GUARD} bytes after the last block)
 * holds a gap pattern of its own. {@link #check} compares a destination with both, byte by byte: a block that was not
 * written, a stale one (another seed), blocks out of order, a byte written into a gap or past the end all fail.
 *
 * {@snippet class=io.jrdma.tool.perf.BlocksSnippets region=layout}
 *
 * @param blockSize bytes per block, at least 1
 * @param blocks    how many blocks, at least 1
 * @param stride    bytes from the start of a block to the start of the next, at least {@code blockSize}
 */
record BlockLayout(int blockSize, int blocks, int stride) {
    /** The most bytes a layout may span, first block to last byte. */
    static final long MAX_SPAN = 1L << 30;
    /** Bytes after the last block that a check covers too: nothing may write past the data. */
    static final int GUARD = 64;

    BlockLayout {
        if (blockSize < 1) {
            throw new IllegalArgumentException("--block-size must be at least 1 byte, not " + blockSize);
        }
        if (blocks < 1) {
            throw new IllegalArgumentException("--blocks must be at least 1, not " + blocks);
        }
        if (stride < blockSize) {
            throw new IllegalArgumentException("--stride " + stride + " is less than --block-size "
                    + blockSize + ": the blocks would overlap");
        }
        long span = (long) (blocks - 1) * stride + blockSize;
        if (span > MAX_SPAN) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%d blocks %d bytes apart span %d "
                    + "bytes; at most %d (1 GiB)", blocks, stride, span, MAX_SPAN));
        }
    }

    /** Bytes from the first block's start to the last block's end. */
    long span() {
        return (long) (blocks - 1) * stride + blockSize;
    }

    /** The bytes the blocks hold: what a message carries. */
    int payload() {
        return blocks * blockSize;
    }

    /** The same blocks packed one after the other. */
    BlockLayout contiguous() {
        return new BlockLayout(blockSize, blocks, blockSize);
    }

    /** Where block {@code b} starts, from the layout's start. */
    long offset(int b) {
        return (long) b * stride;
    }

    /** The bytes a check covers: the span and the guard after it. */
    long extent() {
        return span() + GUARD;
    }

    /** Byte {@code at} of block {@code b} in the data of {@code seed}. */
    static byte pattern(long seed, int b, int at) {
        long z = seed * 0x9E3779B97F4A7C15L + b * 0xBF58476D1CE4E5B9L + at * 0x94D049BB133111EBL;
        z = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
        return (byte) (z >>> 56);
    }

    /** What a byte outside the blocks holds, {@code at} bytes from the layout's start. */
    static byte gap(long at) {
        return (byte) (0xA5 ^ at * 0x3B ^ at >>> 8);
    }

    /** Writes the data of {@code seed} into the blocks at {@code base} and the gap pattern everywhere else. */
    void fill(MemorySegment mem, long base, long seed) {
        clear(mem, base);
        for (int b = 0; b < blocks; b++) {
            long at = base + offset(b);
            for (int i = 0; i < blockSize; i++) {
                mem.set(ValueLayout.JAVA_BYTE, at + i, pattern(seed, b, i));
            }
        }
    }

    /** Writes the gap pattern over the whole extent at {@code base}: a destination before the blocks arrive. */
    void clear(MemorySegment mem, long base) {
        long n = extent();
        for (long i = 0; i < n; i++) {
            mem.set(ValueLayout.JAVA_BYTE, base + i, gap(i));
        }
    }

    /**
     * Compares the extent at {@code base} with the data of {@code seed} in the blocks and the gap pattern elsewhere.
     *
     * @return null when every byte is right, else what the first wrong byte is and where
     */
    String check(MemorySegment mem, long base, long seed) {
        long n = extent();
        for (long i = 0; i < n; i++) {
            long within = i % stride;
            int b = (int) (i / stride);
            boolean inBlock = b < blocks && within < blockSize;
            byte want = inBlock ? pattern(seed, b, (int) within) : gap(i);
            byte got = mem.get(ValueLayout.JAVA_BYTE, base + i);
            if (got != want) {
                String where = inBlock ? String.format(Locale.ROOT, "byte %d of block %d", within, b)
                        : i >= span() ? String.format(Locale.ROOT, "byte %d after the last block", i - span())
                        : String.format(Locale.ROOT, "gap byte %d after block %d", within - blockSize, b);
                return String.format(Locale.ROOT, "%s (offset %d) holds 0x%02x, not 0x%02x%s", where, i, got & 0xff,
                        want & 0xff, inBlock ? " (data " + seed + ")" : ": something wrote outside the blocks");
            }
        }
        return null;
    }

    /** Copies the blocks at {@code from} one after the other to {@code to}: the CPU's gather. */
    void pack(MemorySegment mem, long from, long to) {
        for (int b = 0; b < blocks; b++) {
            MemorySegment.copy(mem, from + (long) b * stride, mem, to + (long) b * blockSize, blockSize);
        }
    }

    /** Copies packed blocks at {@code from} to their places in this layout at {@code to}: the CPU's scatter. */
    void unpack(MemorySegment mem, long from, long to) {
        for (int b = 0; b < blocks; b++) {
            MemorySegment.copy(mem, from + (long) b * blockSize, mem, to + (long) b * stride, blockSize);
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%d blocks of %d B, stride %d B", blocks, blockSize, stride);
    }
}
