/**
 * Asynchronous RDMA endpoints: a progress-engine {@code Worker} per thread, endpoints connected through the
 * connection manager, completion by future or allocation-free handler, pooled registered buffers and credits.
 */
module io.jrdma.endpoint {
    requires transitive io.jrdma.rdmacm;
    requires io.jrdma.bindings;
    exports io.jrdma.endpoint;
}
