package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketRstTest;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * Netty's {@link SocketRstTest} over the transport: a server channel closed with {@code SO_LINGER} 0 resets its
 * client, which gets an {@link IOException} and then goes inactive; closed without it, the client sees no exception.
 * The reset is checked here whatever the JVM's locale (Netty's own check of the message runs only in English ones).
 */
class RdmaSocketRstDeviceTest extends SocketRstTest implements OverRdma {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }

    @Override
    protected void assertRstOnCloseException(IOException cause, Channel clientChannel) {
        assertEquals("Connection reset by peer", assertInstanceOf(SocketException.class, cause).getMessage());
    }
}
