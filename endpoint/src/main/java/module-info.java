/**
 * Asynchronous RDMA endpoints: a progress-engine {@code Worker} per thread, endpoints connected through the
 * connection manager, completion by future or allocation-free handler, pooled registered buffers and credits.
 */
// io.jrdma.netty, to which it exports its internal package, is built after it.
@SuppressWarnings("module")
module io.jrdma.endpoint {
    requires transitive io.jrdma.rdmacm;
    requires io.jrdma.bindings;
    exports io.jrdma.endpoint;
    // Shared by the loops that drive a worker (a started worker's thread, jrdma-netty's event loop) only.
    exports io.jrdma.endpoint.internal to io.jrdma.netty;
}
