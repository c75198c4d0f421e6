package io.jrdma.netty;

import io.jrdma.endpoint.ReceivedMessage;
import io.jrdma.endpoint.Worker;
import io.jrdma.ibverbs.MemoryRegion;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A received message as a {@link ByteBuf}, with no copy: the buffer is the message's bytes in the worker's
 * registered receive slab (or, for a large message, in the pooled buffer it was read into). Its last
 * {@link #release()} releases the message, which reposts the receive buffer and gives the peer its credit back.
 * Its capacity is its length: a handler that writes more into it (a decoder's cumulation) makes it move its bytes
 * to plain direct memory of its own; the message is released with the buffer all the same. Once the pipeline is
 * handed it ({@link #hold()}) it counts in its channel's held buffers until it is released. Written to a channel of
 * the loop it came on, it is sent on from where it lies (see {@link RegisteredBytes}), the message held until that
 * send completes.
 */
final class ReceivedByteBuf extends UnpooledDirectByteBuf implements RegisteredBytes {
    /**
     * Netty tracks the buffers its allocators make; this one is made here, so it is tracked here, at the level
     * Netty's {@link ResourceLeakDetector} is set to.
     */
    private static final ResourceLeakDetector<ByteBuf> LEAKS =
            ResourceLeakDetectorFactory.instance().newResourceLeakDetector(ByteBuf.class);

    private final ReceivedMessage message;
    private final AtomicInteger held;
    private final ResourceLeakTracker<ByteBuf> leak;
    /** Counted in {@link #held}: set on the loop before the pipeline has it, so that whoever releases it sees it. */
    private boolean counted;

    /** Takes over {@code message}; counted in {@code held} from {@link #hold()} until released. */
    ReceivedByteBuf(ByteBufAllocator alloc, ReceivedMessage message, AtomicInteger held) {
        super(alloc, message.segment().asByteBuffer().limit(message.length()), message.length());
        this.message = message;
        this.held = held;
        this.leak = LEAKS.track(this);
    }

    /** The pipeline is handed this buffer: it counts as held until released. */
    void hold() {
        counted = true;
        held.incrementAndGet();
    }

    /** {@return whether the message came on {@code worker}: only its endpoints can send from its memory} */
    boolean isFrom(Worker worker) {
        return message.endpoint().worker() == worker;
    }

    /**
     * This buffer as the registered memory that holds all of {@code view} (a view of its memory), if its bytes are
     * still the message's; else null, and they are sent by copy.
     */
    RegisteredBytes registeredIn(ByteBuffer view) {
        return view.isDirect() && RegisteredBytes.holds(message.segment(), message.length(), view) ? this : null;
    }

    @Override
    public MemoryRegion region() {
        return message.region();
    }

    @Override
    public MemorySegment segment() {
        return message.segment();
    }

    @Override
    public long offset() {
        return message.offset();
    }

    @Override
    public ByteBuf touch(Object hint) {
        if (leak != null) {
            leak.record(hint);
        }
        return this;
    }

    @Override
    public ByteBuf touch() {
        return touch(null);
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        message.release();
        if (counted) {
            held.decrementAndGet();
        }
        if (leak != null) {
            leak.close(this);
        }
    }
}
