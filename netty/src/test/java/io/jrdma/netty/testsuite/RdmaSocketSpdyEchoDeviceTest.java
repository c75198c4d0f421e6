package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketSpdyEchoTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Netty's {@link SocketSpdyEchoTest} over the transport: SPDY frames of every kind echoed through the codec. */
class RdmaSocketSpdyEchoDeviceTest extends SocketSpdyEchoTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }

    /** The suite's bound (15 s) is for a real CPU: in the VM the SPDY codec's first run took 15 to 45 s. */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    @Override
    public void testSpdyEcho(TestInfo testInfo) throws Throwable {
        super.testSpdyEcho(testInfo);
    }

    /** As {@link #testSpdyEcho}. */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    @Override
    public void testSpdyEchoNotAutoRead(TestInfo testInfo) throws Throwable {
        super.testSpdyEchoNotAutoRead(testInfo);
    }
}
