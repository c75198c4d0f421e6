package io.jrdma.rdmacm;

import io.jrdma.ibverbs.RdmaException;

/**
 * An {@link RdmaConnection} operation found the connection closed: by the peer (a disconnect, or its process died)
 * or by this side. What was in flight did not complete.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.ConnectionSnippets region=closed}
 */
public final class ConnectionClosedException extends RdmaException {
    private static final long serialVersionUID = 1L;
    private static final int ECONNRESET = 104;

    ConnectionClosedException(String operation, String detail) {
        super(operation, ECONNRESET, "ECONNRESET", detail);
    }
}
