package io.jrdma.endpoint;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.rdmacm.CmEvent;

import java.net.InetSocketAddress;

/**
 * A peer's request to connect to an {@link EndpointListener}, handed to the listener's handler on the worker's
 * thread. The handler accepts it, making an {@link Endpoint}, or rejects it, with private data either way; a request
 * the handler does neither with is rejected when the handler returns.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=listen}
 */
public final class ConnectRequest {
    private final Worker worker;
    private final CmEvent event;
    private final Handshake handshake;
    private boolean answered;

    ConnectRequest(Worker worker, CmEvent event, Handshake handshake) {
        this.worker = worker;
        this.event = event;
        this.handshake = handshake;
    }

    /**
     * {@return a copy of the private data the peer's application sent}
     */
    public byte[] privateData() {
        return handshake.application().clone();
    }

    /**
     * {@return the peer's address}
     */
    public InetSocketAddress peerAddress() {
        return event.id().peerAddress();
    }

    /**
     * Accepts the request: the endpoint is made now and opens when the peer confirms (its operations may be
     * started at once: they wait for that).
     *
     * @param handler     what the endpoint tells the application
     * @param privateData sent with the accept (at most {@value Endpoint#MAX_ACCEPT_DATA} bytes); null for none
     * @return the endpoint
     * @throws IllegalStateException    if the request was answered already, or the worker holds as many endpoints as
     *                                  it may
     * @throws IllegalArgumentException if the private data is too long
     * @throws RdmaException            if the queue pair cannot be made or the accept fails (the request is then
     *                                  rejected); a {@link io.jrdma.rdmacm.CmEventException} if the client gave up
     *                                  on its request before it was accepted
     * @throws WrongThreadException     if not called on the worker's thread
     */
    public Endpoint accept(EndpointHandler handler, byte[] privateData) throws RdmaException {
        begin();
        return worker.accept(event, handshake, handler, Endpoint.privateData(privateData, Endpoint.MAX_ACCEPT_DATA));
    }

    /**
     * Rejects the request.
     *
     * @param privateData sent with the reject (at most {@value Endpoint#MAX_REJECT_DATA} bytes); null for none
     * @throws IllegalStateException    if the request was answered already
     * @throws IllegalArgumentException if the private data is too long
     * @throws RdmaException            if the reject fails
     * @throws WrongThreadException     if not called on the worker's thread
     */
    public void reject(byte[] privateData) throws RdmaException {
        byte[] data = Endpoint.privateData(privateData, Endpoint.MAX_REJECT_DATA);
        begin();
        worker.reject(event.id(), Handshake.encodeReject(data));
    }

    private void begin() {
        worker.checkThread();
        if (answered) {
            throw new IllegalStateException("the connect request was answered already");
        }
        answered = true;
    }

    boolean answered() {
        return answered;
    }

    @Override
    public String toString() {
        return "ConnectRequest[from " + event.id().peerAddress() + "]";
    }
}
