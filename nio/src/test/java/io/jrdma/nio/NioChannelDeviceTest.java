package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The channel contract on rsockets: options, closes and interrupts racing other threads, and bind rules. */
@RdmaDeviceTest
class NioChannelDeviceTest {

    @Test
    void optionsSetBeforeTheRsocketExistsAreSetOnIt(Device device) throws Exception {
        DeviceSupport.withRdmaServer(device, NioChannelDeviceTest::options);
    }

    private static void options(RdmaSelectorProvider provider, ServerSocketChannel server) throws Exception {
        try (SocketChannel client = provider.openSocketChannel()) {
            assertEquals(Boolean.TRUE, server.getOption(StandardSocketOptions.SO_REUSEADDR));
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            client.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 17);
            client.connect(server.getLocalAddress());
            assertTrue(((SocketChannelImpl) client).isRdma());
            assertEquals(Boolean.TRUE, client.getOption(StandardSocketOptions.TCP_NODELAY), "replayed on the rsocket");
            assertTrue(client.getOption(StandardSocketOptions.SO_RCVBUF) >= 1 << 17, "rsockets double it too");
            client.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            assertEquals(Boolean.TRUE, client.getOption(StandardSocketOptions.SO_KEEPALIVE));
            try (SocketChannel peer = server.accept()) {
                assertTrue(((SocketChannelImpl) peer).isRdma(), "an accepted channel has its server's kind");
                assertEquals(client.getLocalAddress(), peer.getRemoteAddress());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrdma.nio.ChannelContract#checks")
    void theChannelContractHoldsOnRsockets(String name, ChannelContract.Check check, Device device) throws Exception {
        DeviceSupport.withRdmaServer(device, check);
    }

    @Test
    void aBindRuleForAnAddressNoDeviceOwnsFailsNamingTheRule() throws Exception {
        // TEST-NET-1 (RFC 5737): on no interface of any machine.
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("rdma bind 192.0.2.1 *", false);
        try (ServerSocketChannel server = provider.openServerSocketChannel()) {
            BindException e = assertThrows(BindException.class, () -> server.bind(new InetSocketAddress("192.0.2.1", 7474)));
            assertTrue(e.getMessage().startsWith("rule 'rdma bind 192.0.2.1 *' (rules line 1) sends the bind "
                    + "/192.0.2.1:7474 over RDMA, but no RDMA device owns 192.0.2.1 (rdma_bind_addr: "), e.getMessage());
        }
    }

    @Test
    void rulesInASystemPropertySendAnUnchangedApplicationOverRdma(Device device) throws Exception {
        String output = DeviceSupport.runUnchangedAppOverRdma(device, UnchangedEchoApp.class, "echoes whole");
        assertTrue(output.contains("blocking SocketChannelImpl[rdma socket"), output);
        assertTrue(output.contains("selecting ServerSocketChannelImpl[rdma socket"), output);
    }
}
