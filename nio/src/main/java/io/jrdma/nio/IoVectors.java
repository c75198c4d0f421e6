package io.jrdma.nio;

import io.jrdma.bindings.rsocket.iovec;
import io.jrdma.ibverbs.internal.Errno;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

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
    private MemorySegment scratch;

    /** Reads into {@code dsts[offset..offset+length)}; the bytes read (0 at end of stream) or {@link Transport#UNAVAILABLE}. */
    long read(NativeSocket socket, ByteBuffer[] dsts, int offset, int length) throws IOException {
        return transfer(socket, dsts, offset, length, false);
    }

    /** Writes from {@code srcs[offset..offset+length)}; the bytes written or {@link Transport#UNAVAILABLE}. */
    long write(NativeSocket socket, ByteBuffer[] srcs, int offset, int length) throws IOException {
        return transfer(socket, srcs, offset, length, true);
    }

    /** One readv or writev; the buffers' positions move past the bytes it moved. */
    private long transfer(NativeSocket socket, ByteBuffer[] buffers, int offset, int length, boolean out)
            throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            Vector v = vector(buffers, offset, length, arena, out);
            MemorySegment state = Errno.allocateState(arena);
            long n = out ? socket.transport().writev(socket.fd(), v.iov, v.count, state)
                    : socket.transport().readv(socket.fd(), v.iov, v.count, state);
            long left = n;
            for (int i = 0; i < v.count && left > 0; i++) {
                ByteBuffer b = v.buffers[i];
                int take = (int) Math.min(left, v.segments[i].byteSize());
                if (!out && !b.isDirect()) {
                    MemorySegment.copy(v.segments[i], 0, MemorySegment.ofBuffer(b), 0, take);
                }
                b.position(b.position() + take);
                left -= take;
            }
            return n;
        }
    }

    /** The iovecs for the buffers' remaining bytes; heap buffers' bytes are copied to the scratch area if {@code out}. */
    private Vector vector(ByteBuffer[] buffers, int offset, int length, Arena arena, boolean out) {
        int max = Math.min(length, MAX_IOV);
        Vector v = new Vector(iovec.allocateArray(Math.max(max, 1), arena), new ByteBuffer[max],
                new MemorySegment[max]);
        long scratchUsed = 0;
        for (int i = offset; i < offset + length && v.count < max; i++) {
            ByteBuffer b = buffers[i];
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
            MemorySegment slot = iovec.asSlice(v.iov, v.count);
            iovec.iov_base(slot, segment);
            iovec.iov_len(slot, segment.byteSize());
            v.buffers[v.count] = b;
            v.segments[v.count] = segment;
            v.count++;
        }
        return v;
    }

    private MemorySegment scratch() {
        if (scratch == null) {
            // Lives as long as the channel: read and write each have their own (they may run at the same time).
            scratch = Arena.ofAuto().allocate(SCRATCH);
        }
        return scratch;
    }

    /** The iovec array and, per entry, the buffer and the memory it points at. */
    private static final class Vector {
        final MemorySegment iov;
        final ByteBuffer[] buffers;
        final MemorySegment[] segments;
        int count;

        Vector(MemorySegment iov, ByteBuffer[] buffers, MemorySegment[] segments) {
            this.iov = iov;
            this.buffers = buffers;
            this.segments = segments;
        }
    }
}
