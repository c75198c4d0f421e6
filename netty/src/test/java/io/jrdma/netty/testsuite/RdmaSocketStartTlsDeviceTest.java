package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketStartTlsTest;

import java.net.SocketAddress;
import java.util.List;

/** Netty's {@link SocketStartTlsTest} over the transport. */
class RdmaSocketStartTlsDeviceTest extends SocketStartTlsTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }
}
