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
    private final Channel channel;
    private final ArrayDeque<Object> items = new ArrayDeque<>();
    private RdmaIoHandler handler;
    private boolean requested;
    private boolean scheduled;

    ReadQueue(Channel channel) {
        this.channel = channel;
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
        Object item;
        while ((item = items.poll()) != null) {
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
