package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Echo round trips through the provider over rsockets on the device, and RDMA and TCP on one selector. */
@RdmaDeviceTest
class NioEchoDeviceTest {

    @Test
    void blockingEchoOverRdmaChecksEveryByte(Device device) throws Exception {
        DeviceSupport.withRdmaServer(device, NioEchoDeviceTest::blockingEcho);
    }

    private static void blockingEcho(RdmaSelectorProvider provider, ServerSocketChannel server) throws Exception {
        try (SocketChannel client = provider.openSocketChannel()) {
            assertTrue(((ServerSocketChannelImpl) server).nativeSocket().transport().isRdma());
            CompletableFuture<Long> echoed = Echo.serveBlocking(server);
            assertTrue(client.connect(server.getLocalAddress()));
            assertTrue(((SocketChannelImpl) client).isRdma(), "the connect rule sent the client over RDMA");
            assertEquals(server.getLocalAddress(), client.getRemoteAddress());
            Echo.roundTripBlocking(client, 2_000_000);
            assertEquals(2_000_000L, Echo.await(echoed));
        }
    }

    @Test
    void blockingEchoOverRdmaOnTheDevicesIpv6LinkLocalAddress(Device device) throws Exception {
        InetAddress ip = DeviceSupport.linkLocalAddress(device);
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("rdma bind fe80::/10 *; rdma connect fe80::/10 *",
                false);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(new InetSocketAddress(ip, 0));
             SocketChannel client = provider.openSocketChannel()) {
            assertTrue(RdmaChannels.isRdma(server));
            CompletableFuture<Long> echoed = Echo.serveBlocking(server);
            assertTrue(client.connect(server.getLocalAddress()));
            assertTrue(RdmaChannels.isRdma(client));
            assertEquals(ip, ((InetSocketAddress) client.getRemoteAddress()).getAddress());
            Echo.roundTripBlocking(client, 1_000_000);
            assertEquals(1_000_000L, Echo.await(echoed));
        }
    }

    @Test
    void selectingEchoOverRdmaChecksEveryByte(Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        RdmaSelectorProvider provider = DeviceSupport.rdmaProvider(ip);
        try (Selector selector = provider.openSelector();
             ServerSocketChannel server = provider.openServerSocketChannel().bind(new InetSocketAddress(ip, 0));
             SocketChannel a = provider.openSocketChannel(); SocketChannel b = provider.openSocketChannel()) {
            Echo.roundTripSelecting(selector, List.of(server), List.of(a, b), 2_000_000);
            assertTrue(((SocketChannelImpl) a).isRdma());
            assertTrue(((SocketChannelImpl) b).isRdma());
        }
    }

    @Test
    void oneSelectorCarriesAnRdmaAndATcpConnection(Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        // Port 7471 of the device's address goes over RDMA; any other port of the same address over TCP.
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules(
                "rdma bind " + ip + " 7471; rdma connect " + ip + " 7471", false);
        try (Selector selector = provider.openSelector();
             ServerSocketChannel rdma = provider.openServerSocketChannel().bind(new InetSocketAddress(ip, 7471));
             ServerSocketChannel tcp = provider.openServerSocketChannel().bind(new InetSocketAddress(ip, 0));
             SocketChannel overRdma = provider.openSocketChannel(); SocketChannel overTcp = provider.openSocketChannel()) {
            assertTrue(((ServerSocketChannelImpl) rdma).nativeSocket().transport().isRdma());
            assertFalse(((ServerSocketChannelImpl) tcp).nativeSocket().transport().isRdma());
            Echo.roundTripSelecting(selector, List.of(rdma, tcp), List.of(overRdma, overTcp), 1_000_000);
            assertTrue(((SocketChannelImpl) overRdma).isRdma());
            assertFalse(((SocketChannelImpl) overTcp).isRdma());
        }
    }

    @Test
    void aRuleNoDeviceServesFailsClearlyOrFallsBackToTcp() throws Exception {
        RdmaSelectorProvider plain = RdmaSelectorProvider.withRules("", false);
        try (ServerSocketChannel server = plain.openServerSocketChannel().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel refused = RdmaSelectorProvider.withRules("rdma connect 127.0.0.1 *", false)
                     .openSocketChannel();
             SocketChannel fallback = RdmaSelectorProvider.withRules("rdma connect 127.0.0.1 *", true)
                     .openSocketChannel()) {
            ConnectException e = assertThrows(ConnectException.class, () -> refused.connect(server.getLocalAddress()));
            assertTrue(e.getMessage().startsWith("rule 'rdma connect 127.0.0.1 *' (rules line 1) sends the connect to "
                    + server.getLocalAddress() + " over RDMA, but no RDMA device routes to 127.0.0.1"), e.getMessage());
            assertTrue(e.getMessage().endsWith("set -Djrdma.nio.fallback=tcp to use TCP where no RDMA device serves "
                    + "the address"), e.getMessage());
            assertTrue(fallback.connect(server.getLocalAddress()));
            assertFalse(((SocketChannelImpl) fallback).isRdma());
            try (SocketChannel peer = server.accept()) {
                assertEquals(fallback.getLocalAddress(), peer.getRemoteAddress());
            }
        }
    }

    @Test
    void nettyRunsUnchangedOverRsockets(Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        assertTrue(((SocketChannelImpl) NettyEcho.run(DeviceSupport.rdmaProvider(ip), ip, 1_000_000)).isRdma());
    }

    @Test
    void grpcRunsUnchangedOverRsockets(Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        List<SocketChannel> channels = GrpcEcho.run(DeviceSupport.rdmaProvider(ip), ip, 20);
        assertFalse(channels.isEmpty());
        channels.forEach(c -> assertTrue(((SocketChannelImpl) c).isRdma(), c.toString()));
    }
}
