package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketChannelNotYetConnectedTest;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.net.SocketAddress;
import java.util.List;

/** Netty's {@link SocketChannelNotYetConnectedTest} over the transport. */
class RdmaSocketChannelNotYetConnectedDeviceTest extends SocketChannelNotYetConnectedTest implements OverRdma {
    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return List.of(RdmaPermutation::client);
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }

    @Test
    @Disabled("its server is Netty's NIO transport over TCP, which an RDMA client cannot reach")
    @Override
    public void readMustBePendingUntilChannelIsActive(TestInfo info) {
    }
}
