package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_sge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The {@code struct ibv_sge[]} of one work request: checked against its memory regions as entries are added. */
final class ScatterGatherList {
    private static final long SIZE = ibv_sge.sizeof();
    private static final long ADDR = ibv_sge.addr$offset();
    private static final long LENGTH = ibv_sge.length$offset();
    private static final long LKEY = ibv_sge.lkey$offset();

    private final MemorySegment sges;
    private final int max;
    private int count;
    private long totalBytes;

    ScatterGatherList(int max, Arena arena) {
        if (max < 0) {
            throw new IllegalArgumentException("max scatter/gather entries must be >= 0, not " + max);
        }
        this.max = max;
        this.sges = ibv_sge.allocateArray(Math.max(1, max), arena);
    }

    void add(MemoryRegion mr, long offset, int length) {
        if (count == max) {
            throw new IllegalStateException("this work request holds at most " + max + " scatter/gather entries");
        }
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, not " + length);
        }
        mr.checkRange(offset, length);
        long at = count * SIZE;
        sges.set(ValueLayout.JAVA_LONG, at + ADDR, mr.address() + offset);
        sges.set(ValueLayout.JAVA_INT, at + LENGTH, length);
        sges.set(ValueLayout.JAVA_INT, at + LKEY, mr.localKey());
        count++;
        totalBytes += length;
    }

    void clear() {
        count = 0;
        totalBytes = 0;
    }

    int count() {
        return count;
    }

    long totalBytes() {
        return totalBytes;
    }

    MemorySegment segment() {
        return sges;
    }
}
