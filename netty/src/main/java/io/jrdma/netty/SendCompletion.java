package io.jrdma.netty;

import io.jrdma.endpoint.Buffer;
import io.jrdma.endpoint.OperationHandler;
import io.netty.util.ReferenceCounted;

/**
 * Lets a sent message's memory go once the peer acknowledged it, or once the send failed (the endpoint then breaks
 * and its channel closes): a pooled {@link Buffer} a write was copied into goes back to its pool, the pooled memory
 * of a registered {@code ByteBuf} sent from where it lies loses the reference the send held, and a gathered
 * message's array of both lets each of them go.
 */
final class SendCompletion implements OperationHandler<Object> {
    static final SendCompletion INSTANCE = new SendCompletion();

    private SendCompletion() {
    }

    @Override
    public void completed(long value, Object memory) {
        if (memory instanceof Buffer b) {
            b.close();
        } else if (memory instanceof Object[] pieces) {
            for (Object piece : pieces) {
                if (piece != null) {
                    completed(value, piece);
                }
            }
        } else {
            ((ReferenceCounted) memory).release();
        }
    }

    @Override
    public void failed(Throwable failure, Object memory) {
        completed(0, memory);
    }
}
