/**
 * A native Netty 4.2 transport over jrdma's asynchronous endpoints: an {@code IoHandler} that drives one endpoint
 * worker per event loop, and socket channels over its endpoints.
 */
module io.jrdma.netty {
    requires transitive io.jrdma.endpoint;
    requires transitive io.netty.transport;
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;
    exports io.jrdma.netty;
}
