package io.jrdma.netty;

import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;

/**
 * A channel's registration with its loop's {@link RdmaIoHandler}: its attachment is the handler, through which the
 * channel reaches the loop's worker. Nothing is submitted through it: operations go through the endpoint.
 */
final class RdmaRegistration implements IoRegistration {
    private final RdmaIoHandler handler;
    private final RdmaIoHandle handle;
    private boolean valid = true;

    RdmaRegistration(RdmaIoHandler handler, RdmaIoHandle handle) {
        this.handler = handler;
        this.handle = handle;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T attachment() {
        return (T) handler;
    }

    @Override
    public long submit(IoOps ops) {
        throw new UnsupportedOperationException("a jrdma channel's operations go through its endpoint");
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public boolean cancel() {
        if (!valid) {
            return false;
        }
        valid = false;
        handler.unregistered(this);
        handle.unregistered();
        return true;
    }

    void closeHandle() {
        handle.close();
    }
}
