package io.jrdma.nio;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The provider's channels over kernel TCP sockets on the loopback (no rule matches it): the channel contract, which
 * is the same code for RDMA but for the socket calls. Needs librdmacm installed, no RDMA device.
 */
class TcpChannelTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);
    private final RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("", false);

    private ServerSocketChannel listening() throws IOException {
        return provider.openServerSocketChannel().bind(LOOPBACK);
    }

    @Test
    void blockingEchoChecksEveryByte() throws Exception {
        try (ServerSocketChannel server = listening(); SocketChannel client = provider.openSocketChannel()) {
            CompletableFuture<Long> echoed = Echo.serveBlocking(server);
            assertTrue(client.connect(server.getLocalAddress()));
            assertFalse(((SocketChannelImpl) client).isRdma());
            Echo.roundTripBlocking(client, 1_000_000);
            assertEquals(1_000_000L, Echo.await(echoed));
        }
    }

    @Test
    void ipv6AddressesGiveIpv6SocketsWhateverFamilyTheChannelWasOpenedWith() throws Exception {
        InetSocketAddress loopback6 = new InetSocketAddress("::1", 0);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(loopback6);
             SocketChannel client = provider.openSocketChannel()) {
            CompletableFuture<Long> echoed = Echo.serveBlocking(server);
            assertTrue(client.connect(server.getLocalAddress()));
            assertEquals(server.getLocalAddress(), client.getRemoteAddress());
            assertTrue(((InetSocketAddress) client.getLocalAddress()).getAddress() instanceof Inet6Address);
            Echo.roundTripBlocking(client, 100_000);
            assertEquals(100_000L, Echo.await(echoed));
        }
    }

    @Test
    void selectingEchoChecksEveryByte() throws Exception {
        try (Selector selector = provider.openSelector(); ServerSocketChannel server = listening();
             SocketChannel a = provider.openSocketChannel(); SocketChannel b = provider.openSocketChannel()) {
            Echo.roundTripSelecting(selector, List.of(server), List.of(a, b), 300_000);
        }
    }

    @Test
    void manyConnectsAtOnceFromOneSelectorEachEcho() throws Exception {
        try (ServerSocketChannel server = listening()) {
            ConcurrentConnects.fromOneSelector(provider, server);
        }
    }

    @Test
    void manyConnectsAtOnceFromSeveralThreadsEachEcho() throws Exception {
        try (ServerSocketChannel server = listening()) {
            ConcurrentConnects.fromSeveralThreads(provider, server);
        }
    }

    @Test
    void badArgumentsFailBeforeAnyNativeCall() throws IOException {
        try (SocketChannel channel = provider.openSocketChannel(); Selector selector = provider.openSelector()) {
            assertThrows(NullPointerException.class, () -> channel.connect(null));
            assertThrows(UnresolvedAddressException.class,
                    () -> channel.connect(InetSocketAddress.createUnresolved("example.com", 80)));
            assertThrows(UnsupportedAddressTypeException.class, () -> channel.connect(new SocketAddress() { }));
            assertThrows(NotYetConnectedException.class, () -> channel.read(ByteBuffer.allocate(1)));
            assertThrows(IllegalArgumentException.class, () -> channel.read(ByteBuffer.allocate(1).asReadOnlyBuffer()));
            assertThrows(IndexOutOfBoundsException.class, () -> channel.write(new ByteBuffer[1], 1, 1));
            assertThrows(UnsupportedOperationException.class,
                    () -> channel.setOption(StandardSocketOptions.IP_TOS, 1));
            assertThrows(IllegalArgumentException.class, () -> channel.setOption(StandardSocketOptions.SO_RCVBUF, -1));
            assertThrows(IllegalArgumentException.class,
                    () -> channel.configureBlocking(false).register(selector, SelectionKey.OP_ACCEPT));
            assertThrows(IllegalArgumentException.class, () -> selector.select(-1));
            assertThrows(UnsupportedOperationException.class, () -> selector.selectedKeys().add(null));
            assertThrows(UnsupportedOperationException.class, provider::openDatagramChannel);
            assertThrows(UnsupportedOperationException.class, () -> provider.openSocketChannel(StandardProtocolFamily.UNIX));
            assertThrows(IllegalArgumentException.class, () -> RdmaSelectorProvider.withRules("rdma", false));
        }
        try (Selector jdk = Selector.open(); SocketChannel channel = provider.openSocketChannel()) {
            assertThrows(IllegalSelectorException.class,
                    () -> channel.configureBlocking(false).register(jdk, SelectionKey.OP_READ));
        }
    }

    @Test
    void optionsSetBeforeConnectHoldAfterIt() throws Exception {
        try (ServerSocketChannel server = listening(); SocketChannel client = provider.openSocketChannel()) {
            assertEquals(Boolean.TRUE, server.getOption(StandardSocketOptions.SO_REUSEADDR));
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            client.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            client.setOption(StandardSocketOptions.SO_SNDBUF, 65536);
            client.connect(server.getLocalAddress());
            assertEquals(Boolean.TRUE, client.getOption(StandardSocketOptions.TCP_NODELAY));
            assertEquals(Boolean.TRUE, client.getOption(StandardSocketOptions.SO_KEEPALIVE));
            assertTrue(client.getOption(StandardSocketOptions.SO_SNDBUF) >= 65536, "the kernel doubles it");
            assertEquals(server.getLocalAddress(), client.getRemoteAddress());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrdma.nio.ChannelContract#checks")
    void theChannelContractHoldsOnTcp(String name, ChannelContract.Check check) throws Exception {
        try (ServerSocketChannel server = listening()) {
            check.run(provider, server);
        }
    }

    @Test
    void theSystemPropertySwitchesAnUnchangedApplicationOverWithNoRulesAllTcp() throws Exception {
        String output = SystemProperties.runUnchangedApp(UnchangedEchoApp.class, "echoes whole", "127.0.0.1");
        assertTrue(output.contains("blocking SocketChannelImpl[tcp socket"), output);
        assertTrue(output.contains("selecting ServerSocketChannelImpl[tcp socket"), output);
    }

    @Test
    void nettyRunsUnchangedOverTheProvider() throws Exception {
        assertFalse(((SocketChannelImpl) NettyEcho.run(provider, "127.0.0.1", 1_000_000)).isRdma());
    }

    @Test
    void grpcRunsUnchangedOverTheProvider() throws Exception {
        List<SocketChannel> channels = GrpcEcho.run(provider, "127.0.0.1", 20);
        assertFalse(channels.isEmpty());
        channels.forEach(c -> assertFalse(((SocketChannelImpl) c).isRdma()));
    }

    @Test
    void nettyHttpRunsUnchangedOverTheProvider() throws Exception {
        NettyHttp.Channels channels = NettyHttp.run(provider, "127.0.0.1");
        assertFalse(((ServerSocketChannelImpl) channels.server()).nativeSocket().transport().isRdma());
        assertFalse(((SocketChannelImpl) channels.client()).isRdma());
    }

    @Test
    void jettyRunsUnchangedSwitchedOverBySystemPropertiesWithNoRulesAllTcp() throws Exception {
        String output = SystemProperties.runUnchangedApp(UnchangedJettyApp.class, "jetty whole", "127.0.0.1");
        assertTrue(output.contains("listening ServerSocketChannelImpl[tcp socket"), output);
        assertTrue(output.contains("client SocketChannelImpl[tcp socket"), output);
        assertTrue(output.contains("server SocketChannelImpl[tcp socket"), output);
    }
}
