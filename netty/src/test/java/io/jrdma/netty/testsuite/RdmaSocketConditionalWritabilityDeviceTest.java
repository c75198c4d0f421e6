package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketConditionalWritabilityTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Netty's {@link SocketConditionalWritabilityTest} over the transport. */
class RdmaSocketConditionalWritabilityDeviceTest extends SocketConditionalWritabilityTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }

    /** 100 MiB one way: the suite's bound (30 s) is for a real CPU, not an emulated one. */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    @Override
    public void testConditionalWritability(TestInfo testInfo) throws Throwable {
        super.testConditionalWritability(testInfo);
    }
}
