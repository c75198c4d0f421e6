package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketHalfClosedTest;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Netty's {@link SocketHalfClosedTest} over the transport. */
class RdmaSocketHalfClosedDeviceTest extends SocketHalfClosedTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }

    /**
     * The suite's bound (20 s for each test) is for a real CPU: this test reads 16 KiB a byte at a time, two bytes a
     * read, in four cases for each of three allocators, 98,304 reads through the pipeline, and its first connection
     * is the JVM's first. In the VM it took 17 to 20 s, about half of it that first connection. Beside another VM, as
     * the full test run has it, it took 52 to 85 s over 12 runs as its JVM's first test, and in a full run on a busy host
     * it went past 2 minutes; the bound only has to tell a hang from a slow machine.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    @Override
    public void testAllDataReadClosure(TestInfo testInfo) throws Throwable {
        super.testAllDataReadClosure(testInfo);
    }

    /**
     * Blocks an event loop until the peer has closed and then expects the next write to fail at once, as it does on
     * TCP, where the peer's reset is already in the kernel's socket. Here the disconnect is a connection manager event
     * that the blocked loop has not taken yet, so the write is posted and fails later; and the blocked loop is one the
     * other tests share.
     */
    @Test
    @Disabled("a write fails at once only once the loop has taken the peer's disconnect; the test blocks the loop")
    @Override
    public void testAutoCloseFalseDoesShutdownOutput(TestInfo testInfo) {
    }
}
