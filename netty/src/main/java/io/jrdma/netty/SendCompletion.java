package io.jrdma.netty;

import io.jrdma.endpoint.Buffer;
import io.jrdma.endpoint.OperationHandler;

/**
 * Gives a sent message's pooled buffer back once the peer acknowledged it, or once it failed (the endpoint then
 * breaks and its channel closes).
 */
final class SendCompletion implements OperationHandler<Buffer> {
    static final SendCompletion INSTANCE = new SendCompletion();

    private SendCompletion() {
    }

    @Override
    public void completed(long value, Buffer buffer) {
        buffer.close();
    }

    @Override
    public void failed(Throwable failure, Buffer buffer) {
        buffer.close();
    }
}
