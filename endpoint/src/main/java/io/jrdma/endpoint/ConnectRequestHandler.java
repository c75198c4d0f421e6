package io.jrdma.endpoint;

import io.jrdma.ibverbs.RdmaException;

/**
 * What an {@link EndpointListener} does with each connect request, on the worker's thread: accept it or reject it.
 * A request the handler neither accepts nor rejects, or that it throws on, is rejected (a throw is logged).
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=listen}
 */
@FunctionalInterface
public interface ConnectRequestHandler {
    /**
     * Decides on one request.
     *
     * @param request the request
     * @throws RdmaException if accepting or rejecting it fails
     */
    void onConnectRequest(ConnectRequest request) throws RdmaException;
}
