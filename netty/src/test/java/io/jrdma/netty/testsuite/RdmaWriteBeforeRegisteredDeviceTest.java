package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.WriteBeforeRegisteredTest;

import java.net.SocketAddress;
import java.util.List;

/** Netty's {@link WriteBeforeRegisteredTest} over the transport. */
class RdmaWriteBeforeRegisteredDeviceTest extends WriteBeforeRegisteredTest implements OverRdma {
    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return List.of(RdmaPermutation::client);
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }
}
