package io.jrdma.netty;

import io.jrdma.endpoint.BufferPool;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * The allocator of jrdma-netty's channels (their default {@link io.netty.channel.ChannelOption#ALLOCATOR}): a
 * direct buffer taken on a jrdma-netty event loop's thread lies in that loop's registered buffer pool, and a
 * channel of the same loop sends it with no copy; anywhere else, and for heap buffers, it hands out
 * {@link ByteBufAllocator#DEFAULT}'s. A handler's {@code ctx.alloc().buffer()} runs on its channel's loop, so what a
 * pipeline writes is registered memory unless it was made elsewhere. Buffers are tracked by Netty's
 * {@code ResourceLeakDetector} as its own allocators' are.
 *
 * {@snippet class=io.jrdma.netty.snippets.NettySnippets region=allocator}
 */
public final class RdmaByteBufAllocator extends AbstractByteBufAllocator {
    /** The one instance: which pool a buffer comes from depends on the thread that asks. */
    public static final RdmaByteBufAllocator DEFAULT = new RdmaByteBufAllocator();

    /** The pool of the loop whose thread this is. */
    private static final FastThreadLocal<BufferPool> LOOP_POOL = new FastThreadLocal<>();

    private RdmaByteBufAllocator() {
        super(true);
    }

    /** The calling thread is a loop's whose worker has {@code pool}. */
    static void enter(BufferPool pool) {
        LOOP_POOL.set(pool);
    }

    /** The calling thread's loop closes its worker. */
    static void leave() {
        LOOP_POOL.remove();
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return ByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        BufferPool pool = LOOP_POOL.getIfExists();
        RegisteredByteBuf registered = pool == null ? null
                : RegisteredByteBuf.allocate(this, pool, initialCapacity, maxCapacity);
        return registered != null ? toLeakAwareBuffer(registered)
                : ByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);   // plain memory will do
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }
}
