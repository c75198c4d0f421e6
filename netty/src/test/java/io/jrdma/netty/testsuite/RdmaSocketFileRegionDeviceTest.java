package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketFileRegionTest;

import java.net.SocketAddress;
import java.util.List;

/**
 * Netty's {@link SocketFileRegionTest} over the transport: 10 MiB of a file at an offset, after a buffer and an empty
 * region, through {@code DefaultFileRegion} and a custom region, with and without auto-read and void promises; a
 * region longer than its file fails its write; no region is asked for more once it says it is complete. With the
 * suite's options and with {@link io.jrdma.netty.RdmaIoHandler#streamingOptions()}
 * ({@link RdmaPermutation#socketAndStreaming()}).
 */
class RdmaSocketFileRegionDeviceTest extends SocketFileRegionTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socketAndStreaming();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }
}
