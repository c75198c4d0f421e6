package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.CompositeBufferGatheringWriteTest;

import java.net.SocketAddress;
import java.util.List;

/**
 * Netty's {@link CompositeBufferGatheringWriteTest} over the transport, with the suite's options and with
 * {@link io.jrdma.netty.RdmaIoHandler#streamingOptions()} ({@link RdmaPermutation#socketAndStreaming()}).
 */
class RdmaCompositeBufferGatheringWriteDeviceTest extends CompositeBufferGatheringWriteTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socketAndStreaming();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }
}
