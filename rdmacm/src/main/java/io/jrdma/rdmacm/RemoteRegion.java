package io.jrdma.rdmacm;

import io.jrdma.ibverbs.MemoryRegion;

/**
 * A peer's memory region as it advertised it: the address, remote key and length that one-sided reads, writes and
 * atomics of an {@link RdmaConnection} target.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.ConnectionSnippets region=remote-region}
 *
 * @param address   the region's start address in the peer
 * @param remoteKey its remote key
 * @param length    its length in bytes
 */
public record RemoteRegion(long address, int remoteKey, long length) {
    /** Bytes a descriptor takes on the wire: address, key, length. */
    static final int WIRE_BYTES = 20;

    /**
     * Checks the length.
     *
     * @throws IllegalArgumentException if {@code length} is not positive
     */
    public RemoteRegion {
        if (length <= 0) {
            throw new IllegalArgumentException("a remote region has a positive length, not " + length);
        }
    }

    /**
     * The descriptor of local region {@code mr}, for its peer.
     *
     * @param mr a region registered with the remote rights the peer needs
     * @return its address, remote key and length
     * @throws IllegalStateException if the region is closed
     */
    public static RemoteRegion of(MemoryRegion mr) {
        return new RemoteRegion(mr.address(), mr.remoteKey(), mr.length());
    }

    /** @throws IndexOutOfBoundsException if {@code [offset, offset + bytes)} is not inside the region */
    void checkRange(long offset, long bytes) {
        if (offset < 0 || bytes < 0 || offset + bytes > length || offset + bytes < 0) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + (offset + bytes) + ") is outside " + this);
        }
    }
}
