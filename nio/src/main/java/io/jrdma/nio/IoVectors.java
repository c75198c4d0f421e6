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
    private ByteBuffer scratchView;
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

    /** Reads into {@code dst} alone; the bytes read (0 at end of stream) or {@link Transport#UNAVAILABLE}. */
    long read(NativeSocket socket, ByteBuffer dst) throws IOException {
        return single(socket, dst, false);
    }

    /** Writes from {@code src} alone; the bytes written or {@link Transport#UNAVAILABLE}. */
    long write(NativeSocket socket, ByteBuffer src) throws IOException {
        return single(socket, src, true);
    }

    /**
     * One {@code recv} or {@code send} of one buffer with a remaining byte: no array, no iovec. A direct buffer's
     * memory goes as it is, checked once ({@link Segments#usable}, in the transport) before the call, which holds
     * its arena open; a heap buffer's goes through the scratch area. The transport makes the buffer's segment next
     * to the call, where the JIT keeps it (and its session) off the heap, so a call allocates nothing.
     */
    private long single(NativeSocket socket, ByteBuffer b, boolean out) throws IOException {
        if (!b.isDirect()) {
            MemorySegment segment = gather(b, 0, out);
            long n = call(socket, scratchView(segment), out);
            if (n > 0) {
                advance(b, segment, n, out);
            }
            return n;
        }
        long n = call(socket, b, out);
        if (n > 0) {
            b.position(b.position() + (int) n);
        }
        return n;
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
            long n = count == 1 ? call(socket, buffers[0].isDirect() ? buffers[0] : scratchView(segments[0]), out)
                    : vectored(socket, out);
            long left = n;
            for (int i = 0; i < count && left > 0; i++) {
                left -= advance(buffers[i], segments[i], left, out);
            }
            return n;
        } finally {
            // The caller's buffers are not kept past the call, nor past a buffer the vector refused.
            Arrays.fill(buffers, 0, count, null);
            Arrays.fill(segments, 0, count, null);
            count = 0;
        }
    }

    /** One {@code writev} or {@code readv} of the {@link #count} segments, written to the iovecs first. */
    private long vectored(NativeSocket socket, boolean out) throws IOException {
        for (int i = 0; i < count; i++) {
            MemorySegment slot = iovec.asSlice(iov, i);
            iovec.iov_base(slot, segments[i]);
            iovec.iov_len(slot, segments[i].byteSize());
        }
        return out ? socket.transport().writev(socket.fd(), iov, count, errnoState())
                : socket.transport().readv(socket.fd(), iov, count, errnoState());
    }

    /**
     * Moves {@code b}'s position past what a call moved of its {@code segment}, at most {@code moved} bytes, copied
     * from the scratch area first for a heap buffer read into; how many bytes that is.
     */
    private int advance(ByteBuffer b, MemorySegment segment, long moved, boolean out) {
        int take = (int) Math.min(moved, segment.byteSize());
        if (!out && !b.isDirect()) {
            b.put(b.position(), scratchView, (int) (segment.address() - scratch.address()), take);
        }
        b.position(b.position() + take);
        return take;
    }

    /**
     * One {@code send} or {@code recv} of the remaining bytes of the direct buffer {@code b}, whose segment the
     * transport makes next to the call, so that the JIT keeps it off the heap (see {@link Transport#recv}).
     */
    private long call(NativeSocket socket, ByteBuffer b, boolean out) throws IOException {
        return out ? socket.transport().send(socket.fd(), b, errnoState())
                : socket.transport().recv(socket.fd(), b, errnoState());
    }

    /** The scratch area's {@code slice} (a slice of {@link #scratch}) as the scratch buffer's remaining bytes. */
    private ByteBuffer scratchView(MemorySegment slice) {
        int from = (int) (slice.address() - scratch.address());
        return scratchView.clear().limit(from + (int) slice.byteSize()).position(from);
    }

    /**
     * Gathers the memory of the buffers' remaining bytes, heap buffers' bytes copied to the scratch area if
     * {@code out}, into {@link #segments}, and {@link #count} with how many it gathered. The iovecs are written only
     * for a vectored call ({@link #vectored}): a single buffer goes to {@code recv} or {@code send} as it is.
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
            MemorySegment segment = gather(b, scratchUsed, out);
            if (segment == null) {
                break;
            }
            if (!b.isDirect()) {
                scratchUsed += segment.byteSize();
            }
            buffers[count] = b;
            segments[count] = segment;
            count++;
        }
    }

    /**
     * The memory of {@code b}'s remaining bytes: a direct buffer's own, checked usable; a heap buffer's a slice of
     * the scratch area from {@code scratchUsed}, its bytes copied there if {@code out}, or null if the area is full.
     */
    private MemorySegment gather(ByteBuffer b, long scratchUsed, boolean out) {
        if (b.isDirect()) {
            return direct(b);
        }
        long room = SCRATCH - scratchUsed;
        if (room == 0) {
            return null;
        }
        MemorySegment segment = scratch().asSlice(scratchUsed, Math.min(b.remaining(), room));
        if (out) {
            // A call left the view's limit at what it passed (scratchView), and an absolute put checks against it.
            scratchView.clear().put((int) scratchUsed, b, b.position(), (int) segment.byteSize());
        }
        return segment;
    }

    /**
     * The memory of a direct buffer's remaining bytes, checked alive and accessible from this thread: an iovec
     * carries only the address, so the checks a segment argument gets from the linker go here, and a single buffer
     * gets them too, so that a refusal names the buffer whichever call it was for.
     */
    private static MemorySegment direct(ByteBuffer b) {
        return Segments.usable(MemorySegment.ofBuffer(b), "a buffer's memory");
    }

    /**
     * The scratch area, made at its first use. It is a direct buffer's memory, not an arena's, and heap buffers'
     * bytes go in and out of it with {@link ByteBuffer}'s bulk copies, the call taking its own view
     * ({@link #scratchView}), never a heap buffer: so every segment that reaches {@code recv} and {@code send} is a
     * direct buffer's, of one kind of memory session. Had the JIT seen other kinds there (a heap buffer's segment,
     * an arena's session), it would no longer keep a direct buffer's segment off the heap, and each call would
     * allocate one (72 bytes).
     */
    private MemorySegment scratch() {
        if (scratch == null) {
            scratchView = ByteBuffer.allocateDirect(SCRATCH);
            scratch = MemorySegment.ofBuffer(scratchView);
        }
        return scratch;
    }
}
