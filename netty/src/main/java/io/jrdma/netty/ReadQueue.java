package io.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.UncheckedBooleanSupplier;

import java.util.ArrayDeque;
import java.util.function.UnaryOperator;

/**
 * What a channel received (buffers, or a server's accepted channels) until its pipeline reads it: the endpoint
 * delivers whenever the worker polls a completion, Netty reads only when asked ({@link Channel#read()}, which
 * auto-read asks after every read). Held items keep their resources: a received buffer its peer's credit, so a
 * channel that does not read slows its own peer down and nobody else.
 *
 * <p>A read is shaped by the channel's {@link RecvByteBufAllocator}, as a socket read is: each {@code channelRead}
 * hands over at most the handle's {@link RecvByteBufAllocator.Handle#guess() guess} of bytes (a zero-copy slice of a
 * larger received buffer, whose rest the next one gets), and the read goes on while the handle says so (auto-read
 * on, fewer messages than its maximum per read, more received). So turning auto-read off in {@code channelRead}
 * stops the read there, as on Netty's socket transports.
 */
final class ReadQueue {
    /** Where the peer's stream ends: what follows it is not read. */
    private static final Object END = new Object();
    /** Where the peer reset the stream: an end that the channel reports as an error. */
    private static final Object RESET = new Object();

    private final Channel channel;
    private final Runnable onEnd;
    private final Runnable onReset;
    private final UnaryOperator<Object> beforeRead;
    private final ArrayDeque<Object> items = new ArrayDeque<>();
    /** {@link #anyLeft()} for the allocator's handle, made once rather than per read. */
    private final UncheckedBooleanSupplier moreLeft = this::anyLeft;
    /** The buffer a read handed over in part: what is left of it is read next. */
    private ByteBuf current;
    private RdmaIoHandler handler;
    private boolean requested;
    private boolean scheduled;

    /**
     * @param channel the channel whose pipeline reads
     * @param onEnd      what the channel does when a read reaches the end of the peer's stream ({@link #end()})
     * @param onReset    what the channel does when a read reaches the peer's reset ({@link #reset()})
     * @param beforeRead what the pipeline reads for an item, at the moment it reads it; if it throws, it released the
     *                   item, and the channel closes
     */
    ReadQueue(Channel channel, Runnable onEnd, Runnable onReset, UnaryOperator<Object> beforeRead) {
        this.channel = channel;
        this.onEnd = onEnd;
        this.onReset = onReset;
        this.beforeRead = beforeRead;
    }

    /** The channel was registered with {@code h}'s loop. */
    void attach(RdmaIoHandler h) {
        handler = h;
        schedule();
    }

    void add(Object item) {
        items.add(item);
        schedule();
    }

    /**
     * The peer ended its stream: reads hand over what came before, then the channel is told, with no read asked for
     * if nothing came before (as an epoll channel learns of a half-closure from {@code EPOLLRDHUP}).
     */
    void end() {
        add(END);
    }

    /** The peer reset its stream: as {@link #end()}, but the channel is told of a reset. */
    void reset() {
        add(RESET);
    }

    /** Whether Netty asked for a read that has not taken anything yet. */
    boolean requested() {
        return requested;
    }

    /** Netty asked for a read. */
    void request() {
        requested = true;
        schedule();
    }

    private boolean anyLeft() {
        return current != null || !items.isEmpty();
    }

    private boolean endIsNext() {
        return current == null && isEnd(items.peek());
    }

    private static boolean isEnd(Object item) {
        return item == END || item == RESET;
    }

    /** Tells the channel of the end {@code item}. */
    private void ended(Object item) {
        (item == RESET ? onReset : onEnd).run();
    }

    private void schedule() {
        if (!scheduled && handler != null && (requested && anyLeft() || endIsNext())) {
            scheduled = true;
            handler.readable(this);
        }
    }

    /**
     * The end of the stream if nothing is before it, else one read if one was asked for. While it reads, a read asked
     * for ({@code ctx.read()} in {@code channelRead}) is taken by the next message it hands over, as a socket
     * channel's read loop takes it; one asked for after the last starts the next read.
     */
    void deliver() {
        if (channel.isOpen()) {
            if (endIsNext()) {
                ended(items.poll());
            } else if (requested && anyLeft()) {
                read();
            }
        }
        scheduled = false;
        schedule();
    }

    /** One read: what the channel's receive allocator lets through the pipeline, then the read is complete. */
    // The unsafe gives the handle as its deprecated supertype, as it does to Netty's own channels.
    @SuppressWarnings("deprecation")
    private void read() {
        ChannelPipeline pipeline = channel.pipeline();
        RecvByteBufAllocator.Handle handle = channel.unsafe().recvBufAllocHandle();
        handle.reset(channel.config());
        boolean read = false;
        do {
            Object next = current != null ? current : items.poll();
            if (isEnd(next)) {
                if (read) {
                    handle.readComplete();
                    pipeline.fireChannelReadComplete();
                }
                ended(next);
                return;
            }
            if (current == null) {
                try {
                    next = beforeRead.apply(next);
                } catch (Throwable failure) {   // the allocator of a copy out of memory, say; the item is released
                    failed(read, handle, pipeline, failure);
                    return;
                }
            }
            read = true;
            requested = false;
            handle.incMessagesRead(1);
            pipeline.fireChannelRead(next instanceof ByteBuf buffer ? piece(buffer, handle) : next);
        } while (anyLeft() && (handle instanceof RecvByteBufAllocator.ExtendedHandle extended
                ? extended.continueReading(moreLeft) : handle.continueReading()));
        handle.readComplete();
        pipeline.fireChannelReadComplete();
    }

    /**
     * What the read was to hand over next could not be made, and the stream has a gap from there: as a socket channel
     * whose read fails, the pipeline completes its read, hears of the failure and the channel closes, and the loop
     * with its other channels goes on.
     */
    @SuppressWarnings("deprecation")
    private void failed(boolean read, RecvByteBufAllocator.Handle handle, ChannelPipeline pipeline, Throwable failure) {
        if (read) {
            handle.readComplete();
            pipeline.fireChannelReadComplete();
        }
        pipeline.fireExceptionCaught(failure);
        channel.unsafe().close(channel.unsafe().voidPromise());
    }

    /**
     * What one {@code channelRead} hands over of {@code buffer}: all of it if it is within the handle's guess, else a
     * slice of that many bytes, the rest left for the next.
     */
    @SuppressWarnings("deprecation")
    private ByteBuf piece(ByteBuf buffer, RecvByteBufAllocator.Handle handle) {
        int guess = Math.max(1, handle.guess());
        handle.attemptedBytesRead(guess);
        ByteBuf piece;
        if (buffer.readableBytes() <= guess) {
            current = null;
            piece = buffer;
        } else {
            current = buffer;
            piece = buffer.readRetainedSlice(guess);
        }
        handle.lastBytesRead(piece.readableBytes());
        return piece;
    }

    /** The channel closed: what it never read is released (buffers) or closed (accepted channels). */
    void clear() {
        if (current != null) {
            current.release();
            current = null;
        }
        Object item;
        while ((item = items.poll()) != null) {
            if (item instanceof Channel child) {
                child.unsafe().closeForcibly();
            } else {
                ReferenceCountUtil.release(item);
            }
        }
    }
}
