package io.jrdma.netty;

import io.jrdma.endpoint.Buffer;
import io.jrdma.endpoint.BufferPool;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.RdmaException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;
import io.netty.util.internal.CleanableDirectBuffer;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A direct {@link ByteBuf} over a buffer of a loop's registered {@link BufferPool}, which a channel of that loop
 * sends with no copy. Growing it moves its bytes to a larger pooled buffer and gives the old one back; past the
 * pool's largest buffer (or when the pool cannot register more) it moves to plain direct memory and is sent by copy
 * from then on. A pooled buffer goes back to the pool once neither this buffer nor a send uses it: when this buffer
 * is released or grows out of it, or, while a send still reads it, when the last such send completes (each send
 * holds a reference to the pooled memory, not to this buffer, which may meanwhile grow or be released).
 */
final class RegisteredByteBuf extends UnpooledDirectByteBuf {
    private final BufferPool pool;
    /** The pooled memory the bytes are in; null once they moved to plain direct memory. */
    private Storage current;
    /** The memory it was made with, which Netty does not free (it frees what {@link #allocateDirectBuffer} made). */
    private Storage initial;

    private RegisteredByteBuf(RdmaByteBufAllocator alloc, BufferPool pool, Storage initial, int maxCapacity) {
        super(alloc, initial.buffer(), maxCapacity);
        this.pool = pool;
        this.current = initial;
        this.initial = initial;
        setIndex(0, 0);
    }

    /**
     * A buffer of {@code initialCapacity} bytes from {@code pool}, or null if the pool has no registered memory to
     * give ({@link #pooled}).
     */
    static RegisteredByteBuf allocate(RdmaByteBufAllocator alloc, BufferPool pool, int initialCapacity,
                                      int maxCapacity) {
        Storage initial = pooled(pool, initialCapacity);
        return initial == null ? null : new RegisteredByteBuf(alloc, pool, initial, maxCapacity);
    }

    /**
     * {@code capacity} bytes of {@code pool}'s memory, or null where plain memory must do: past the largest pooled
     * buffer, when the pool can register no more (the locked-memory limit, or no huge page left for a pool that takes
     * them), or when the loop closed it.
     */
    private static Storage pooled(BufferPool pool, int capacity) {
        if (capacity > BufferPool.MAX_BUFFER) {
            return null;
        }
        try {
            return new Storage(pool.allocate(Math.max(1, capacity)), capacity);
        } catch (RdmaException | IllegalStateException | UnsupportedOperationException e) {
            return null;
        }
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        Storage before = current;
        super.capacity(newCapacity);
        if (current != before && before == initial) {
            // Netty moved the bytes out of the memory this one was made with, and leaves freeing it to its maker.
            initial.release();
            initial = null;
        }
        return this;
    }

    @Override
    protected CleanableDirectBuffer allocateDirectBuffer(int capacity) {
        current = pooled(pool, capacity);
        return current != null ? current : super.allocateDirectBuffer(capacity);
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        if (initial != null) {
            initial.release();
            initial = null;
        }
        current = null;
    }

    /** {@return whether the bytes are in a buffer of {@code pool}'s now} */
    boolean isIn(BufferPool pool) {
        return current != null && this.pool == pool;
    }

    /**
     * The pooled memory that holds all of {@code view} (a view of this buffer's memory), else null: then the bytes
     * are sent by copy. Whose pool it is is for {@link #isIn} to tell.
     */
    Storage registeredIn(ByteBuffer view) {
        Storage s = current;
        if (s == null || !view.isDirect()) {
            return null;
        }
        return RegisteredBytes.holds(s.pooled.segment(), s.pooled.capacity(), view) ? s : null;
    }

    /**
     * A pooled buffer as the memory a registered buffer's bytes are in, counted: the buffer holds one reference
     * while its bytes are there (Netty cleans it when the buffer grows out of it or is freed) and each send from it
     * one more; the last release gives the pooled buffer back.
     */
    static final class Storage extends AbstractReferenceCounted implements CleanableDirectBuffer, RegisteredBytes {
        final Buffer pooled;
        private final ByteBuffer buffer;

        Storage(Buffer pooled, int capacity) {
            this.pooled = pooled;
            this.buffer = pooled.segment().asSlice(0, capacity).asByteBuffer();
        }

        @Override
        public ByteBuffer buffer() {
            return buffer;
        }

        @Override
        public MemoryRegion region() {
            return pooled.region();
        }

        @Override
        public MemorySegment segment() {
            return pooled.segment();
        }

        @Override
        public long offset() {
            return pooled.offset();
        }

        @Override
        public void clean() {
            release();
        }

        @Override
        protected void deallocate() {
            pooled.close();
        }

        @Override
        public ReferenceCounted touch(Object hint) {
            return this;
        }
    }
}
