package io.jrdma.endpoint;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.internal.HugePages;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Registered memory whose registration can end before its memory does: the owner's {@link #close} deregisters it,
 * and the memory is freed once the owner and every holder have let go. A pool chunk whose buffers, or a receive
 * slab whose messages, the application still holds past its worker's close keeps the memory that a buffer over it
 * (a Netty buffer that another transport writes through its raw address, say) still points at.
 */
final class LeasedMemory implements AutoCloseable {
    private final Arena arena;
    private final MemoryRegion region;
    /** The owner, until its close, and every holder. */
    private final AtomicInteger holders = new AtomicInteger(1);

    private LeasedMemory(Arena arena, MemoryRegion region) {
        this.arena = arena;
        this.region = region;
    }

    /**
     * Registers {@code size} bytes of new page-aligned memory, or of huge pages ({@code size} a multiple of their
     * size), in an arena of their own.
     */
    static LeasedMemory register(ProtectionDomain pd, long size, boolean hugePages, Access... access)
            throws RdmaException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment memory = hugePages ? HugePages.map(size, arena) : arena.allocate(size, 4096);
            return new LeasedMemory(arena, pd.register(memory, arena, access));
        } catch (RuntimeException | RdmaException e) {
            arena.close();
            throw e;
        }
    }

    MemoryRegion region() {
        return region;
    }

    /** Takes a hold, unless the memory is freed already: whether it took one. */
    boolean hold() {
        int n;
        do {
            n = holders.get();
            if (n == 0) {
                return false;
            }
        } while (!holders.compareAndSet(n, n + 1));
        return true;
    }

    /** Lets go of a hold: the last one frees the memory. */
    void letGo() {
        if (holders.decrementAndGet() == 0) {
            arena.close();
        }
    }

    /** Deregisters the memory and lets go of the owner's hold. */
    @Override
    public void close() throws RdmaException {
        try {
            region.close();
        } finally {
            letGo();
        }
    }
}
