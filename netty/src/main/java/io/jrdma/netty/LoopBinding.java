package io.jrdma.netty;

import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;

/**
 * A channel's tie to its event loop: the registration with the loop's {@link RdmaIoHandler}, and through it the
 * worker whose endpoints the channel uses. On the loop's thread only.
 */
final class LoopBinding {
    private IoRegistration registration;
    private RdmaIoHandler handler;

    /** Whether {@code loop} runs an {@link RdmaIoHandler}. */
    static boolean compatible(EventLoop loop) {
        return loop instanceof IoEventLoop io && io.isCompatible(RdmaIoHandle.class);
    }

    /** What a channel does on its loop once registered, before the registration succeeds. */
    @FunctionalInterface
    interface Registered {
        void on(RdmaIoHandler handler) throws Exception;
    }

    /**
     * Registers {@code handle} with {@code loop}; {@code then} runs on the loop once it is, and if it throws, the
     * registration is cancelled and fails with that cause.
     */
    void register(EventLoop loop, RdmaIoHandle handle, ReadQueue reads, ChannelPromise promise, Registered then) {
        ((IoEventLoop) loop).register(handle).addListener(f -> {
            if (!f.isSuccess()) {
                promise.setFailure(f.cause());
                return;
            }
            IoRegistration r = (IoRegistration) f.getNow();
            RdmaIoHandler h = r.attachment();
            try {
                then.on(h);
            } catch (Exception e) {
                r.cancel();
                promise.setFailure(e);
                return;
            }
            registration = r;
            handler = h;
            reads.attach(h);
            promise.setSuccess();
        });
    }

    void deregister() {
        IoRegistration r = registration;
        if (r != null) {
            registration = null;
            r.cancel();
        }
    }

    /** The loop's handler, once registered; null before. */
    RdmaIoHandler handler() {
        return handler;
    }
}
