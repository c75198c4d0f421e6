package io.jrdma.endpoint;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.rdmacm.CmEvent;

import java.net.InetSocketAddress;

/**
 * A peer's request to connect to an {@link EndpointListener}, handed to the listener's handler on the worker's
 * thread. The handler accepts it, making an {@link Endpoint}, or rejects it, with private data either way; a request
 * the handler does neither with is rejected when the handler returns, unless the handler {@link #defer defers} it:
 * then another worker of the same device may accept it on its own thread ({@link #acceptOn}), so that one listener
 * spreads its connections over several workers.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=listen}
 */
public final class ConnectRequest {
    private static final int NEW = 0;
    private static final int DEFERRED = 1;
    private static final int ANSWERED = 2;

    private final Worker worker;
    private final CmEvent event;
    private final Handshake handshake;
    /** NEW, DEFERRED or ANSWERED; a deferred request may be answered from another thread, so under this lock. */
    private int state = NEW;

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
     * @throws IllegalStateException    if the request was answered or deferred already (a deferred one is accepted
     *                                  with {@link #acceptOn}), or the worker holds as many endpoints as it may
     * @throws IllegalArgumentException if the private data is too long
     * @throws RdmaException            if the queue pair cannot be made or the accept fails (the request is then
     *                                  rejected); a {@link io.jrdma.rdmacm.CmEventException} if the client gave up
     *                                  on its request before it was accepted
     * @throws WrongThreadException     if not called on the worker's thread
     */
    public Endpoint accept(EndpointHandler handler, byte[] privateData) throws RdmaException {
        byte[] data = Endpoint.privateData(privateData, Endpoint.MAX_ACCEPT_DATA);
        worker.checkThread();
        answer(NEW);
        return worker.accept(event, handshake, handler, data);
    }

    /**
     * Leaves the request unanswered when the handler returns: later, a worker accepts it with {@link #acceptOn},
     * or any thread rejects it. The peer waits meanwhile, up to its connection manager's timeout (seconds); a
     * request deferred and never answered holds its connection-manager id until the listener's worker closes.
     *
     * @throws IllegalStateException if the request was answered or deferred already
     * @throws WrongThreadException  if not called on the listener's worker's thread
     */
    public void defer() {
        worker.checkThread();
        synchronized (this) {
            if (state != NEW) {
                throw new IllegalStateException("the connect request was " + (state == DEFERRED ? "deferred"
                        : "answered") + " already");
            }
            state = DEFERRED;
            worker.deferred.add(this);
        }
    }

    /**
     * Accepts the request on {@code target}, a worker of the same device as the listener's (or the listener's own):
     * the endpoint uses {@code target}'s queues and thread, and the connection manager's events for it go to
     * {@code target}. The request must have been {@linkplain #defer deferred}, unless {@code target} is the
     * listener's worker and the handler has not returned.
     *
     * @param target      the worker that takes the connection, on whose thread this is called
     * @param handler     what the endpoint tells the application
     * @param privateData sent with the accept (at most {@value Endpoint#MAX_ACCEPT_DATA} bytes); null for none
     * @return the endpoint, {@code target}'s
     * @throws IllegalStateException    if the request was answered already, {@code target} is on another device
     *                                  (the request is then rejected), or holds as many endpoints as it may
     * @throws IllegalArgumentException if the private data is too long
     * @throws RdmaException            if the queue pair cannot be made or the accept fails (the request is then
     *                                  rejected)
     * @throws WrongThreadException     if not called on {@code target}'s thread
     */
    public Endpoint acceptOn(Worker target, EndpointHandler handler, byte[] privateData) throws RdmaException {
        byte[] data = Endpoint.privateData(privateData, Endpoint.MAX_ACCEPT_DATA);
        target.checkThread();
        answer(target == worker ? -1 : DEFERRED);
        try {
            // The connection manager's later events for the id (established, disconnected) go to target's channel.
            event.id().migrate(target.events());
        } catch (RdmaException | RuntimeException e) {
            target.reject(event.id(), Handshake.encodeReject(new byte[0]));
            throw e;
        }
        return target.accept(event, handshake, handler, data);
    }

    /**
     * Rejects the request.
     *
     * @param privateData sent with the reject (at most {@value Endpoint#MAX_REJECT_DATA} bytes); null for none
     * @throws IllegalStateException    if the request was answered already
     * @throws IllegalArgumentException if the private data is too long
     * @throws RdmaException            if the reject fails
     * @throws WrongThreadException     if not called on the worker's thread, unless the request was
     *                                  {@linkplain #defer deferred}: then from any thread
     */
    public void reject(byte[] privateData) throws RdmaException {
        byte[] data = Endpoint.privateData(privateData, Endpoint.MAX_REJECT_DATA);
        synchronized (this) {
            if (state == NEW) {
                worker.checkThread();
            }
            answer(-1);
        }
        worker.reject(event.id(), Handshake.encodeReject(data));
    }

    /**
     * Marks the request answered if it is in state {@code from} (-1: new, or deferred).
     *
     * @throws IllegalStateException if it is answered, or new where deferred is needed, or the other way round
     */
    private synchronized void answer(int from) {
        if (state == ANSWERED) {
            throw new IllegalStateException("the connect request was answered already");
        }
        if (from >= 0 && state != from) {
            throw new IllegalStateException(from == NEW ? "the connect request was deferred: accept it with acceptOn"
                    : "accepting on another worker needs a deferred request (defer() in the listener's handler)");
        }
        if (state == DEFERRED) {
            worker.deferred.remove(this);
        }
        state = ANSWERED;
    }

    /** The listener's worker closes with the request still deferred: nobody will accept it now. */
    void rejectUnanswered() {
        try {
            reject(null);
        } catch (RdmaException | IllegalStateException answeredMeanwhile) {
            // Accepted or rejected by another thread since: nothing is left to answer.
        }
    }

    /** Whether the handler left the request to the worker's default answer, the reject. */
    synchronized boolean unanswered() {
        return state == NEW;
    }

    @Override
    public String toString() {
        return "ConnectRequest[from " + event.id().peerAddress() + "]";
    }
}
