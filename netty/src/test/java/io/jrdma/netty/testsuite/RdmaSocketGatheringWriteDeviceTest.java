package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketGatheringWriteTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.condition.DisabledIf;

import java.net.SocketAddress;
import java.util.List;

/**
 * Netty's {@link SocketGatheringWriteTest} over the transport, with the suite's options and with
 * {@link io.jrdma.netty.RdmaIoHandler#streamingOptions()} ({@link RdmaPermutation#socketAndStreaming()}).
 */
class RdmaSocketGatheringWriteDeviceTest extends SocketGatheringWriteTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socketAndStreaming();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }

    /**
     * 50 MiB within a bound written into the test (60 s), which the test bed's emulated CPU does not meet: Netty
     * pipelines moved 1.4 to 2.4 MB/s through it (the conditional-writability test's 100 MiB took 40 to 75 s), and
     * this one did not finish in time. {@code testGatheringWrite} runs the same gathering path with 1 MiB; on
     * hardware this one runs too.
     */
    @Test
    @DisabledIf(value = "io.jrdma.netty.testsuite.EmulatedCpu#detected",
            disabledReason = "50 MiB in a fixed 60 s does not finish on an emulated CPU; testGatheringWrite runs 1 MiB")
    @Override
    public void testGatheringWriteBig(TestInfo testInfo) throws Throwable {
        super.testGatheringWriteBig(testInfo);
    }
}
