package io.jrdma.netty;

import io.jrdma.ibverbs.MemoryRegion;
import io.netty.util.ReferenceCounted;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Registered memory a channel sends a buffer's bytes from where they lie: the pooled memory of a buffer of the loop's
 * {@link RdmaByteBufAllocator}, or a message received on the loop. Each send holds a reference until it completes,
 * so that the memory is neither given back to its pool nor reposted to receive while the device reads it.
 */
interface RegisteredBytes extends ReferenceCounted {
    /** {@return the region the bytes lie in} */
    MemoryRegion region();

    /** {@return the segment that starts at {@link #offset()} of {@link #region()}} */
    MemorySegment segment();

    /** {@return where {@link #segment()} starts in {@link #region()}} */
    long offset();

    /** {@return where {@code view}, a view of {@link #segment()}, starts in {@link #region()}} */
    default long offsetOf(ByteBuffer view) {
        return offset() + MemorySegment.ofBuffer(view).address() - segment().address();
    }

    /** {@return whether all of {@code view} (direct) lies in the first {@code length} bytes of {@code segment}} */
    static boolean holds(MemorySegment segment, long length, ByteBuffer view) {
        long start = MemorySegment.ofBuffer(view).address() - segment.address();
        return start >= 0 && start + view.remaining() <= length;
    }
}
