package io.jrdma.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;

/**
 * What a channel received (buffers, or a server's accepted channels) until its pipeline reads it: the endpoint
 * delivers whenever the worker polls a completion, Netty reads only when asked ({@link Channel#read()}, which
 * auto-read asks after every read). Held items keep their resources: a received buffer its peer's credit, so a
 * channel that does not read slows its own peer down and nobody else.
 */
final class ReadQueue {
    /** Where the peer's stream ends: what follows it is not read. */
    private static final Object END = new Object();

    private final Channel channel;
    private final Runnable onEnd;
    private final ArrayDeque<Object> items = new ArrayDeque<>();
    private RdmaIoHandler handler;
    private boolean requested;
    private boolean scheduled;

    /**
     * @param channel the channel whose pipeline reads
     * @param onEnd   what the channel does when a read reaches the end of the peer's stream ({@link #end()})
     */
    ReadQueue(Channel channel, Runnable onEnd) {
        this.channel = channel;
        this.onEnd = onEnd;
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

    /** The peer ended its stream: a read hands over what came before, then tells the channel. */
    void end() {
        add(END);
    }

    /** Netty asked for a read. */
    void request() {
        requested = true;
        schedule();
    }

    private void schedule() {
        if (requested && !scheduled && !items.isEmpty() && handler != null) {
            scheduled = true;
            handler.readable(this);
        }
    }

    /** One read: everything received so far goes through the pipeline, then the read is complete. */
    void deliver() {
        scheduled = false;
        if (!requested || items.isEmpty() || !channel.isOpen()) {
            return;
        }
        requested = false;
        ChannelPipeline pipeline = channel.pipeline();
        boolean read = false;
        Object item;
        while ((item = items.poll()) != null) {
            if (item == END) {
                if (read) {
                    pipeline.fireChannelReadComplete();
                }
                onEnd.run();
                return;
            }
            read = true;
            pipeline.fireChannelRead(item);
        }
        pipeline.fireChannelReadComplete();
    }

    /** The channel closed: what it never read is released (buffers) or closed (accepted channels). */
    void clear() {
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
