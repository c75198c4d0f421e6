package io.jrdma.endpoint;

import java.io.IOException;

/**
 * The server refused a {@link Worker#connect}: its application rejected the request (with the private data it chose),
 * or it is not a jrdma endpoint, or no one listens there.
 */
public final class ConnectionRejectedException extends IOException {
    private static final long serialVersionUID = 1L;
    /** The reject's private data. */
    private final byte[] privateData;

    ConnectionRejectedException(String message, byte[] privateData) {
        super(message);
        this.privateData = privateData.clone();
    }

    /**
     * {@return a copy of the private data the server's application rejected with (empty if none)}
     */
    public byte[] privateData() {
        return privateData.clone();
    }
}
