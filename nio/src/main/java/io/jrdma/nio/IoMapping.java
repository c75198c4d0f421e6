package io.jrdma.nio;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.SocketChannel;

/**
 * Native memory of this side that the peer of an RDMA channel writes into directly with its {@code riowrite}
 * (rsockets' {@code riomap}), without a receive on this side. The peer addresses it by {@link #offset()}, which
 * both sides agree on; the peer learns of the mapping with the next bytes this side sends on the channel, so send
 * something after mapping (as C's {@code riostream} does) before the peer writes. This side sees the peer's bytes
 * when it reads the memory; a flag the peer writes last tells when they are all there, as RDMA writes of one
 * connection land in order.
 *
 * <p>The mapping owns its memory, which stays readable until {@link #close()}. Closing the mapping unmaps it and
 * frees the memory; closing the channel first unmaps it (the peer can write no more) and leaves the memory to the
 * mapping's close. This side may map as many buffers as the peer's {@link RdmaSocketOptions#IOMAP_SIZE} allows,
 * and the peer as many as this side's does.
 *
 * {@snippet class=io.jrdma.nio.snippets.RemoteWriteSnippets region=map}
 */
public final class IoMapping implements AutoCloseable {
    private final NativeSocket socket;
    private final Arena arena;
    private final MemorySegment segment;
    private final long offset;
    private final Runnable unmapBeforeSocketCloses = this::unmapBeforeSocketCloses;
    private boolean mapped = true;
    private boolean closed;

    private IoMapping(NativeSocket socket, Arena arena, MemorySegment segment, long offset) {
        this.socket = socket;
        this.arena = arena;
        this.segment = segment;
        this.offset = offset;
    }

    /**
     * {@code byteSize} bytes of new, zeroed native memory that the peer of {@code channel} may write at
     * {@code offset} to {@code offset + byteSize - 1}. Mappings of one channel must not overlap (rsockets does
     * not check it).
     *
     * @param channel  a connected channel of {@link RdmaSelectorProvider} that runs over RDMA
     * @param byteSize how many bytes
     * @param offset   where the peer's writes address the first byte
     * @return the mapping, whose memory the peer may write from now on
     * @throws IllegalArgumentException if {@code channel} is not such a channel, {@code byteSize} is not positive
     *                                  or {@code offset} is negative
     * @throws java.nio.channels.NotYetConnectedException if it is not connected yet
     * @throws IOException if librdmacm refuses, e.g. when the peer's {@code IOMAP_SIZE} allows no more mappings
     */
    public static IoMapping allocate(SocketChannel channel, long byteSize, long offset) throws IOException {
        SocketChannelImpl rdma = RdmaChannels.rdmaChannel(channel);
        if (byteSize <= 0) {
            throw new IllegalArgumentException("byteSize must be positive: " + byteSize);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset cannot be negative: " + offset);
        }
        NativeSocket socket = rdma.acquireConnected();
        try {
            Arena arena = Arena.ofShared();
            try {
                MemorySegment segment = arena.allocate(byteSize, 64);
                IoMapping mapping = new IoMapping(socket, arena, segment,
                        IoMapCalls.map(socket.fd(), segment, offset));
                // rclose loops for ever over a mapping left mapped (rdma-core 44 to 64 at least: rs_free takes the
                // socket out of its table, then unmaps with riounmap, which no longer finds it): the socket unmaps
                // first.
                socket.beforeClose(mapping.unmapBeforeSocketCloses);
                return mapping;
            } catch (IOException | RuntimeException e) {
                arena.close();
                throw e;
            }
        } finally {
            socket.release();
        }
    }

    /** {@return the memory the peer writes into; not to be used after {@link #close()}} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return where the peer's writes address this memory's first byte} */
    public long offset() {
        return offset;
    }

    /** Unmaps the memory, unless closing the channel did, and frees it; idempotent. */
    @Override
    public void close() throws IOException {
        boolean open = socket.acquire();
        try {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                if (mapped && open) {
                    socket.cancelBeforeClose(unmapBeforeSocketCloses);
                    mapped = false;
                    IoMapCalls.unmap(socket.fd(), segment);
                }
                if (!mapped) {
                    arena.close();
                }
                // Else the channel is closed and its socket about to be: its unmapping frees the memory too.
            }
        } finally {
            if (open) {
                socket.release();
            }
        }
    }

    private synchronized void unmapBeforeSocketCloses() {
        if (mapped) {
            mapped = false;
            try {
                IoMapCalls.unmap(socket.fd(), segment);
            } catch (IOException ignored) {
                // The socket is being closed: librdmacm frees what is left of the mapping with it.
            }
        }
        if (closed) {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "IoMapping[" + segment.byteSize() + " bytes at offset " + offset + " of " + socket + "]";
    }
}
