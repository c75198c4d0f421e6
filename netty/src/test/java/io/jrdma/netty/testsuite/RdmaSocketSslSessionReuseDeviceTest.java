package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketSslSessionReuseTest;

import java.net.SocketAddress;
import java.util.List;

/** Netty's {@link SocketSslSessionReuseTest} over the transport: TLS sessions resumed on a second connection. */
class RdmaSocketSslSessionReuseDeviceTest extends SocketSslSessionReuseTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }
}
