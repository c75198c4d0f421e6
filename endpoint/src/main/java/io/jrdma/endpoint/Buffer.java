package io.jrdma.endpoint;

import io.jrdma.ibverbs.MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * A registered buffer from a worker's {@link BufferPool}: a slice of a region the pool registered once, which
 * operations send from or read into with no copy and no registration of their own. Closing it gives it back to the
 * pool; it must not be used afterwards (its segment may already be another buffer's). The pool owns the memory,
 * so no close of a buffer can free memory an operation in flight still uses; and a buffer held past its worker's
 * close keeps its memory (no longer registered) until it is closed.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=buffers}
 */
public final class Buffer implements AutoCloseable {
    private final BufferPool pool;
    private final LeasedMemory memory;
    private final long offset;
    private final MemorySegment segment;
    private final int sizeClass;
    /** Whether the buffer is in the pool's free list; guarded by the pool's lock for the class. */
    boolean free;

    Buffer(BufferPool pool, LeasedMemory memory, long offset, int capacity, int sizeClass) {
        this.pool = pool;
        this.memory = memory;
        this.offset = offset;
        this.segment = memory.region().segment().asSlice(offset, capacity);
        this.sizeClass = sizeClass;
    }

    /**
     * {@return the buffer's memory, all of its capacity}
     */
    public MemorySegment segment() {
        return segment;
    }

    /**
     * {@return the registered region the buffer lies in, for an {@link Endpoint}'s operations}
     */
    public MemoryRegion region() {
        return memory.region();
    }

    /**
     * {@return where the buffer starts in {@link #region()}}
     */
    public long offset() {
        return offset;
    }

    /**
     * {@return the buffer's size in bytes: the size asked for, rounded up to a power of two of at least 64}
     */
    public int capacity() {
        return (int) segment.byteSize();
    }

    int sizeClass() {
        return sizeClass;
    }

    LeasedMemory memory() {
        return memory;
    }

    /**
     * Gives the buffer back to its pool.
     *
     * @throws IllegalStateException if it was given back already
     */
    @Override
    public void close() {
        pool.giveBack(this);
    }

    @Override
    public String toString() {
        return "Buffer[" + capacity() + " B at " + offset + " of " + memory.region() + "]";
    }
}
