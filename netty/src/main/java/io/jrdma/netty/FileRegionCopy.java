package io.jrdma.netty;

import io.netty.channel.FileRegion;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * The channel a {@link FileRegion} writes into when the transport sends it: a message's registered buffer. The
 * device sends only registered memory, so a file's bytes are copied there, as rsockets copies every write, where a
 * TCP transport has the kernel send them from the page cache ({@code sendfile}). The region drives the copy
 * ({@link FileRegion#transferTo}), so custom regions work as {@link io.netty.channel.DefaultFileRegion} does.
 * Confined to the channel's loop.
 */
final class FileRegionCopy implements WritableByteChannel {
    /** The message being filled; null between fills. */
    private ByteBuffer to;

    /**
     * Copies from {@code region}, where it stands ({@link FileRegion#transferred()}), into {@code message} until its
     * first {@code length} bytes are full or the region says it is complete; no call to the region after that.
     *
     * @return the bytes copied, 0 if the region moved nothing
     * @throws IOException as the region's {@code transferTo} does: a file shorter than the region's count, a read
     *                     that failed
     */
    int fill(FileRegion region, MemorySegment message, int length) throws IOException {
        to = message.asSlice(0, length).asByteBuffer();
        try {
            while (to.hasRemaining() && region.transferred() < region.count()) {
                if (region.transferTo(this, region.transferred()) <= 0) {
                    break;
                }
            }
            return to.position();
        } finally {
            to = null;
        }
    }

    /** Takes what fits in the message; a region stops where a write takes less than it was given. */
    @Override
    public int write(ByteBuffer src) {
        int n = Math.min(src.remaining(), to.remaining());
        int limit = src.limit();
        to.put(src.limit(src.position() + n));
        src.limit(limit);
        return n;
    }

    @Override
    public boolean isOpen() {
        return to != null;
    }

    @Override
    public void close() {
        // The message belongs to the channel; a region closes its file, not its target.
    }
}
