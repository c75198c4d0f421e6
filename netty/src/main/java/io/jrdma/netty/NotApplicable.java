package io.jrdma.netty;

/** The socket options that have no meaning over RDMA endpoints, and why. */
final class NotApplicable {
    private NotApplicable() {
    }

    static UnsupportedOperationException option(String name) {
        return new UnsupportedOperationException(name + " does not apply to RDMA endpoints: their buffers are the "
                + "worker's receive slab and credits (WorkerOptions), they send every message at once, and the "
                + "connection manager owns their addresses and ports");
    }
}
