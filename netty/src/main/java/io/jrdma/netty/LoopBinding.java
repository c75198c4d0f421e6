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

    void register(EventLoop loop, RdmaIoHandle handle, ReadQueue reads, ChannelPromise promise) {
        ((IoEventLoop) loop).register(handle).addListener(f -> {
            if (f.isSuccess()) {
                registration = (IoRegistration) f.getNow();
                handler = registration.attachment();
                reads.attach(handler);
                promise.setSuccess();
            } else {
                promise.setFailure(f.cause());
            }
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
