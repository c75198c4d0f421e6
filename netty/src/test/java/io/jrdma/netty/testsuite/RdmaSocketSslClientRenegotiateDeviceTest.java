package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketSslClientRenegotiateTest;

import java.net.SocketAddress;
import java.util.List;

/** Netty's {@link SocketSslClientRenegotiateTest} over the transport: a renegotiation the server refuses. */
class RdmaSocketSslClientRenegotiateDeviceTest extends SocketSslClientRenegotiateTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }
}
