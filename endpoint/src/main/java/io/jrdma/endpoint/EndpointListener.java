package io.jrdma.endpoint;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.rdmacm.CmId;

import java.net.InetSocketAddress;

/**
 * Where a {@link Worker} takes connect requests: bound to an address of the worker's device, it hands each request
 * to its handler on the worker's thread. Closing it stops listening; endpoints it accepted stay open.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=listen}
 */
public final class EndpointListener implements AutoCloseable {
    private final Worker worker;
    final CmId id;
    final ConnectRequestHandler handler;
    private final InetSocketAddress address;
    private volatile boolean closed;

    EndpointListener(Worker worker, CmId id, ConnectRequestHandler handler) {
        this.worker = worker;
        this.id = id;
        this.handler = handler;
        this.address = id.localAddress();
    }

    /**
     * {@return the address it listens on, with the port it was given}
     */
    public InetSocketAddress localAddress() {
        return address;
    }

    /**
     * Stops listening, from any thread (off the worker's thread the worker does it next time it runs).
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            worker.executeUnlessClosed(() -> worker.closeListener(this));
        }
    }

    void closeNow() throws RdmaException {
        closed = true;
        id.close();
    }

    @Override
    public String toString() {
        return "EndpointListener[" + address + "]";
    }
}
