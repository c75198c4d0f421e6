package io.jrdma.nio;

import io.jrdma.bindings.rsocket.rsocket_h;
import io.jrdma.ibverbs.internal.Errno;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/** librdmacm's {@code riomap}, {@code riounmap} and {@code riowrite}: an rsocket's remote writes. */
final class IoMapCalls {
    private static final MethodHandle RIOMAP = Errno.capturing(rsocket_h.riomap$address(),
            rsocket_h.riomap$descriptor());
    private static final MethodHandle RIOUNMAP = Errno.capturing(rsocket_h.riounmap$address(),
            rsocket_h.riounmap$descriptor());
    private static final MethodHandle RIOWRITE = Errno.capturing(rsocket_h.riowrite$address(),
            rsocket_h.riowrite$descriptor());

    private IoMapCalls() {
    }

    /** Registers {@code buffer} for the peer of rsocket {@code fd} to write at {@code offset}; that offset. */
    static long map(int fd, MemorySegment buffer, long offset) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Errno.allocateState(arena);
            long mapped = (long) RIOMAP.invokeExact(state, fd, buffer, buffer.byteSize(), rsocket_h.PROT_WRITE(), 0,
                    offset);
            if (mapped == -1) {
                int errno = Errno.read(state);
                // librdmacm has one slot per mapping the peer's RDMA_IOMAPSIZE allows, and ENOMEM when none is free.
                throw errno == rsocket_h.ENOMEM() ? new IOException("riomap: ENOMEM: the peer's IOMAP_SIZE allows no more "
                        + "mappings (it is 0 unless the peer set it before the connection was made)")
                        : Transport.rdma().failure("iomap", errno);
            }
            return mapped;
        } catch (Throwable t) {
            throw Transport.rethrown(t);
        }
    }

    static void unmap(int fd, MemorySegment buffer) throws IOException {
        Transport.rdma().call("iounmap", (state, arena) -> (int) RIOUNMAP.invokeExact(state, fd, buffer,
                buffer.byteSize()));
    }

    /**
     * Writes {@code source} at {@code offset} of what the peer mapped; the bytes written, or
     * {@link Transport#UNAVAILABLE} when the send queue has no room. {@code state} is the errno capture state of the
     * channel's writes, reused as by its {@code writev}.
     */
    static long write(int fd, MemorySegment source, long offset, MemorySegment state) throws IOException {
        try {
            long n = (long) RIOWRITE.invokeExact(state, fd, source, source.byteSize(), offset, 0);
            if (n == 0) {
                // riowrite stops, without an error, at the first byte no mapping of the peer covers.
                throw new IOException("riowrite: offset " + offset + " is in no buffer the peer has mapped");
            }
            return Transport.rdma().transferred("iowrite", n, state);
        } catch (Throwable t) {
            throw Transport.rethrown(t);
        }
    }
}
