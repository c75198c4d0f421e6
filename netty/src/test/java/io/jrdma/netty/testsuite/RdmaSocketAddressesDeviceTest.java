package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketAddressesTest;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** Netty's {@link SocketAddressesTest} over the transport. */
class RdmaSocketAddressesDeviceTest extends SocketAddressesTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }

    /** An address of the device's, with a port of its own: both ends are connected by then. */
    @Override
    protected void assertAddress(SocketAddress address) {
        InetSocketAddress inet = assertInstanceOf(InetSocketAddress.class, address);
        assertEquals(((InetSocketAddress) RdmaPermutation.newSocketAddress()).getAddress(), inet.getAddress());
        assertNotEquals(0, inet.getPort());
    }
}
