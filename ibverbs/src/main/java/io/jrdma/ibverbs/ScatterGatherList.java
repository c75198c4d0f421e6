package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_sge;
import io.jrdma.ibverbs.internal.ResourceGuard;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/** The {@code struct ibv_sge[]} of one work request: checked against its memory regions as entries are added. */
final class ScatterGatherList {
    private static final long SIZE = ibv_sge.sizeof();
    private static final long ADDR = ibv_sge.addr$offset();
    private static final long LENGTH = ibv_sge.length$offset();
    private static final long LKEY = ibv_sge.lkey$offset();

    private final MemorySegment sges;
    /** The region of each entry: checked and, for inline data, held open while a post reads it. */
    private final MemoryRegion[] regions;
    /** {@code regions[0]}, or null: the region of most requests' only entry, checked one load nearer. */
    private MemoryRegion first;
    private final int max;
    private int count;
    private long totalBytes;

    ScatterGatherList(int max, Arena arena) {
        if (max < 0) {
            throw new IllegalArgumentException("max scatter/gather entries must be >= 0, not " + max);
        }
        this.max = max;
        this.sges = ibv_sge.allocateArray(Math.max(1, max), arena);
        this.regions = new MemoryRegion[max];
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
        regions[count] = mr;
        if (count == 0) {
            first = mr;
        }
        count++;
        totalBytes += length;
    }

    void clear() {
        Arrays.fill(regions, 0, count, null);
        first = null;
        count = 0;
        totalBytes = 0;
    }

    /**
     * Refuses entries whose region is closed (its keys name nothing, or something else by now) or belongs to
     * another protection domain than {@code pd} (the device would fail the request with a protection error).
     */
    void check(ProtectionDomain pd) {
        MemoryRegion mr = first;
        if (mr != null && (mr.protectionDomain() != pd || mr.isClosed())) {
            throw refused(0, pd);
        }
        for (int i = 1; i < count; i++) {
            mr = regions[i];
            if (mr.protectionDomain() != pd || mr.isClosed()) {
                throw refused(i, pd);
            }
        }
    }

    // Out of line: the check stays small enough to inline into the post.
    private RuntimeException refused(int i, ProtectionDomain pd) {
        MemoryRegion mr = regions[i];
        if (mr.protectionDomain() != pd) {
            return new IllegalArgumentException("scatter/gather entry " + i + " is in " + mr + " of another "
                    + "protection domain than " + pd);
        }
        return new IllegalStateException("scatter/gather entry " + i + " is in a closed region: " + mr);
    }

    /** Puts the guard of every entry's region into {@code into} from {@code at}; returns the index after the last. */
    int regionGuardsInto(ResourceGuard[] into, int at) {
        for (int i = 0; i < count; i++) {
            into[at + i] = regions[i].guard;
        }
        return at + count;
    }

    /** Whether every entry's region is memory mapped in this process, not dma-buf memory known by its IOVA. */
    boolean allMapped() {
        for (int i = 0; i < count; i++) {
            if (!regions[i].isMapped()) {
                return false;
            }
        }
        return true;
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
