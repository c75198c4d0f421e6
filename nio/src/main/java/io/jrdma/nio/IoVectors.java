package io.jrdma.nio;

import io.jrdma.bindings.rsocket.iovec;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.Segments;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Scatter/gather between {@link ByteBuffer}s and a socket with one call. A direct buffer's memory goes to C as it
 * is; a heap buffer's bytes go through a native scratch area (they may move), which bounds how much of the heap
 * buffers one call moves.
 *
 * <p>A direct buffer may be a view of a memory segment ({@link MemorySegment#asByteBuffer}), whose arena can be
 * closed. One buffer goes to {@code recv}/{@code send} as a segment argument, which holds its arena open for the
 * call, as the JDK's channels do. Several go to {@code readv}/{@code writev} as raw addresses in iovecs, which
 * hold nothing: each is checked alive and accessible from this thread before the call, so that no call ever
 * touches the memory of an arena closed before it; an arena that another thread closes during the call is not
 * held (the public API has no way to).
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
    /** How many entries the current call filled. */
    private int count;

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

    /** One call; the buffers' positions move past the bytes it moved. */
    private long transfer(NativeSocket socket, ByteBuffer[] from, int offset, int length, boolean out)
            throws IOException {
        try {
            vector(from, offset, length, out);
            long n = count == 1 ? single(socket, segments[0], out) : out
                    ? socket.transport().writev(socket.fd(), iov, count, errnoState())
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
            // The caller's buffers are not kept past the call, nor past a buffer the vector refused.
            Arrays.fill(buffers, 0, count, null);
            Arrays.fill(segments, 0, count, null);
            count = 0;
        }
    }

    /** One {@code send} or {@code recv} of {@code segment}, which the call holds. */
    private long single(NativeSocket socket, MemorySegment segment, boolean out) throws IOException {
        return out ? socket.transport().send(socket.fd(), segment, errnoState())
                : socket.transport().recv(socket.fd(), segment, errnoState());
    }

    /**
     * Fills the iovecs for the buffers' remaining bytes, heap buffers' bytes copied to the scratch area if
     * {@code out}, and {@link #count} with how many it filled.
     */
    private void vector(ByteBuffer[] from, int offset, int length, boolean out) {
        int max = Math.max(Math.min(length, MAX_IOV), 1);
        if (buffers.length < max) {
            iov = iovec.allocateArray(max, arena);
            buffers = new ByteBuffer[max];
            segments = new MemorySegment[max];
        }
        long scratchUsed = 0;
        for (int i = offset; i < offset + length && count < max; i++) {
            ByteBuffer b = from[i];
            if (!b.hasRemaining()) {
                continue;
            }
            MemorySegment segment;
            if (b.isDirect()) {
                // An iovec carries only the address: the checks a segment argument gets from the linker go here.
                segment = Segments.usable(MemorySegment.ofBuffer(b), "a buffer's memory");
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
    }


    private MemorySegment scratch() {
        if (scratch == null) {
            scratch = arena.allocate(SCRATCH);
        }
        return scratch;
    }
}
