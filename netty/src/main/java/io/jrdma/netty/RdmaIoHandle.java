package io.jrdma.netty;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;

/**
 * What a jrdma channel registers with its loop's {@link RdmaIoHandler}. Its events never come through
 * {@link #handle}: the channel's endpoint (or listener) calls it back from the worker directly.
 */
interface RdmaIoHandle extends IoHandle {
    @Override
    default void handle(IoRegistration registration, IoEvent ioEvent) {
        throw new UnsupportedOperationException("a jrdma channel's events come from its endpoint, not as IoEvents");
    }

    /** Closes the channel because its loop shuts down; no checked exception, unlike {@link IoHandle#close()}. */
    @Override
    void close();
}
