package io.jrdma.nio;

import io.jrdma.bindings.rsocket.iovec;
import io.jrdma.ibverbs.internal.Errno;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Scatter/gather between {@link ByteBuffer}s and a socket with one {@code readv}/{@code writev}. A direct buffer's
 * memory goes to C as it is; a heap buffer's bytes go through a native scratch area (they may move), which bounds
 * how much of the heap buffers one call moves.
 */
final class IoVectors {
    /** The most iovecs one call passes (Linux's {@code IOV_MAX}). */
    private static final int MAX_IOV = 1024;
    /** The scratch area's size: what one call moves at most through heap buffers. */
    private static final int SCRATCH = 64 * 1024;
    /**
     * Native memory reused by every call, made at the first: a channel's reads, or its writes, are one thread at a
     * time (its read or write lock), and each has its own instance. It lives as long as the channel.
     */
    private final Arena arena = Arena.ofAuto();
    private MemorySegment scratch;
    private MemorySegment state;
    /** The iovec array and, per entry, the buffer and the memory it points at; grown to the most entries asked. */
    private MemorySegment iov;
    private ByteBuffer[] buffers = new ByteBuffer[0];
    private MemorySegment[] segments = new MemorySegment[0];

    /** Reads into {@code dsts[offset..offset+length)}; the bytes read (0 at end of stream) or {@link Transport#UNAVAILABLE}. */
    long read(NativeSocket socket, ByteBuffer[] dsts, int offset, int length) throws IOException {
        return transfer(socket, dsts, offset, length, false);
    }

    /** Writes from {@code srcs[offset..offset+length)}; the bytes written or {@link Transport#UNAVAILABLE}. */
    long write(NativeSocket socket, ByteBuffer[] srcs, int offset, int length) throws IOException {
        return transfer(socket, srcs, offset, length, true);
    }

    /** The errno capture state of these transfers, for other calls under the same lock (a remote write). */
    MemorySegment errnoState() {
        if (state == null) {
            state = Errno.allocateState(arena);
        }
        return state;
    }

    /** One readv or writev; the buffers' positions move past the bytes it moved. */
    private long transfer(NativeSocket socket, ByteBuffer[] from, int offset, int length, boolean out)
            throws IOException {
        int count = vector(from, offset, length, out);
        try {
            long n = out ? socket.transport().writev(socket.fd(), iov, count, errnoState())
                    : socket.transport().readv(socket.fd(), iov, count, errnoState());
            long left = n;
            for (int i = 0; i < count && left > 0; i++) {
                ByteBuffer b = buffers[i];
                int take = (int) Math.min(left, segments[i].byteSize());
                if (!out && !b.isDirect()) {
                    MemorySegment.copy(segments[i], 0, MemorySegment.ofBuffer(b), 0, take);
                }
                b.position(b.position() + take);
                left -= take;
            }
            return n;
        } finally {
            // The caller's buffers are not kept past the call.
            Arrays.fill(buffers, 0, count, null);
            Arrays.fill(segments, 0, count, null);
        }
    }

    /**
     * Fills the iovecs for the buffers' remaining bytes, heap buffers' bytes copied to the scratch area if
     * {@code out}; returns how many it filled.
     */
    private int vector(ByteBuffer[] from, int offset, int length, boolean out) {
        int max = Math.max(Math.min(length, MAX_IOV), 1);
        if (buffers.length < max) {
            iov = iovec.allocateArray(max, arena);
            buffers = new ByteBuffer[max];
            segments = new MemorySegment[max];
        }
        int count = 0;
        long scratchUsed = 0;
        for (int i = offset; i < offset + length && count < max; i++) {
            ByteBuffer b = from[i];
            if (!b.hasRemaining()) {
                continue;
            }
            MemorySegment segment;
            if (b.isDirect()) {
                segment = MemorySegment.ofBuffer(b);
            } else {
                long room = SCRATCH - scratchUsed;
                if (room == 0) {
                    break;
                }
                segment = scratch().asSlice(scratchUsed, Math.min(b.remaining(), room));
                scratchUsed += segment.byteSize();
                if (out) {
                    MemorySegment.copy(MemorySegment.ofBuffer(b), 0, segment, 0, segment.byteSize());
                }
            }
            MemorySegment slot = iovec.asSlice(iov, count);
            iovec.iov_base(slot, segment);
            iovec.iov_len(slot, segment.byteSize());
            buffers[count] = b;
            segments[count] = segment;
            count++;
        }
        return count;
    }

    private MemorySegment scratch() {
        if (scratch == null) {
            scratch = arena.allocate(SCRATCH);
        }
        return scratch;
    }
}
