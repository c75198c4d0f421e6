package io.jrdma.nio;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectionKey;

/** A registration with a {@link PollSelector}: the interest set is read at the start of each select. */
final class PollSelectionKey extends AbstractSelectionKey {
    private final SelectableChannel channel;
    private final PollSelector selector;
    private volatile int interestOps;
    private volatile int readyOps;

    PollSelectionKey(SelectableChannel channel, PollSelector selector) {
        this.channel = channel;
        this.selector = selector;
    }

    @Override
    public SelectableChannel channel() {
        return channel;
    }

    @Override
    public Selector selector() {
        return selector;
    }

    Pollable pollable() {
        return (Pollable) channel;
    }

    @Override
    public int interestOps() {
        ensureValid();
        return interestOps;
    }

    @Override
    public PollSelectionKey interestOps(int ops) {
        ensureValid();
        if ((ops & ~channel.validOps()) != 0) {
            throw new IllegalArgumentException("ops " + ops + " not valid for " + channel);
        }
        interestOps = ops;
        return this;
    }

    /** The interest set without the validity check, for the selector. */
    int interest() {
        return interestOps;
    }

    @Override
    public int readyOps() {
        ensureValid();
        return readyOps;
    }

    void readyOps(int ops) {
        readyOps = ops;
    }

    private void ensureValid() {
        if (!isValid()) {
            throw new CancelledKeyException();
        }
    }
}
