package io.jrdma.netty;

import io.jrdma.endpoint.Buffer;
import io.jrdma.endpoint.BufferPool;
import io.jrdma.ibverbs.RdmaException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.util.internal.CleanableDirectBuffer;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A direct {@link ByteBuf} over a buffer of a loop's registered {@link BufferPool}, which a channel of that loop
 * sends with no copy. Growing it moves its bytes to a larger pooled buffer and gives the old one back; past the
 * pool's largest buffer (or when the pool cannot register more) it moves to plain direct memory and is sent by copy
 * from then on. Its pooled buffer goes back to the pool when it is released, or, while a send still reads it, when
 * that send completes (the send holds a reference).
 */
final class RegisteredByteBuf extends UnpooledDirectByteBuf {
    private final BufferPool pool;
    /** The pooled buffer the bytes are in; null once they moved to plain direct memory. */
    private Buffer current;
    /** The buffer it was made with, which Netty does not free (it frees what {@link #allocateDirectBuffer} made). */
    private Buffer initial;

    private RegisteredByteBuf(RdmaByteBufAllocator alloc, BufferPool pool, Buffer initial, int initialCapacity,
                              int maxCapacity) {
        super(alloc, initial.segment().asSlice(0, initialCapacity).asByteBuffer(), maxCapacity);
        this.pool = pool;
        this.current = initial;
        this.initial = initial;
        setIndex(0, 0);
    }

    /**
     * A buffer of {@code initialCapacity} bytes from {@code pool}.
     *
     * @throws RdmaException if the pool has to register memory and cannot
     */
    static RegisteredByteBuf allocate(RdmaByteBufAllocator alloc, BufferPool pool, int initialCapacity,
                                      int maxCapacity) throws RdmaException {
        return new RegisteredByteBuf(alloc, pool, pool.allocate(Math.max(1, initialCapacity)), initialCapacity,
                maxCapacity);
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        Buffer before = current;
        super.capacity(newCapacity);
        if (current != before && before == initial) {
            // Netty moved the bytes out of the buffer this one was made with, and leaves freeing it to its maker.
            initial.close();
            initial = null;
        }
        return this;
    }

    @Override
    protected CleanableDirectBuffer allocateDirectBuffer(int capacity) {
        if (capacity <= BufferPool.MAX_BUFFER) {
            try {
                Buffer b = pool.allocate(Math.max(1, capacity));
                current = b;
                return new Pooled(b, capacity);
            } catch (RdmaException | IllegalStateException e) {
                // No more registered memory (the locked-memory limit), or the loop closed its pool: plain memory.
            }
        }
        current = null;
        return super.allocateDirectBuffer(capacity);
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        if (initial != null) {
            initial.close();
            initial = null;
        }
        current = null;
    }

    /** {@return the registered buffer {@code buffer} is or wraps (a leak tracker, a slice, a duplicate), or null} */
    static RegisteredByteBuf of(ByteBuf buffer) {
        ByteBuf b = buffer;
        while (b != null && !(b instanceof RegisteredByteBuf)) {
            b = b.unwrap();
        }
        return (RegisteredByteBuf) b;
    }

    /** {@return whether the bytes are in a buffer of {@code pool}'s now} */
    boolean isIn(BufferPool pool) {
        return current != null && this.pool == pool;
    }

    /**
     * The pooled buffer that holds all of {@code view} (a view of this buffer's memory) if it is {@code pool}'s,
     * else null: then the bytes are sent by copy.
     */
    Buffer registeredIn(BufferPool pool, ByteBuffer view) {
        Buffer b = current;
        if (!isIn(pool) || !view.isDirect()) {
            return null;
        }
        long start = MemorySegment.ofBuffer(view).address() - b.segment().address();
        return start >= 0 && start + view.remaining() <= b.capacity() ? b : null;
    }

    /** A pooled buffer as the memory Netty grows a buffer into: cleaning it gives it back. */
    private record Pooled(Buffer pooled, ByteBuffer buffer) implements CleanableDirectBuffer {
        Pooled(Buffer pooled, int capacity) {
            this(pooled, pooled.segment().asSlice(0, capacity).asByteBuffer());
        }

        @Override
        public void clean() {
            pooled.close();
        }
    }
}
