package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketCloseForciblyTest;

import java.net.SocketAddress;
import java.util.List;

/**
 * Netty's {@link SocketCloseForciblyTest} over the transport: a server that takes an accepted channel out of its
 * pipeline, gives it {@code SO_LINGER} 0 and closes it forcibly before it was ever registered; the client's channel
 * closes (its connect is rejected).
 */
class RdmaSocketCloseForciblyDeviceTest extends SocketCloseForciblyTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }
}
