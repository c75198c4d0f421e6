package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection service room ({@link ConnectService}) that a process makes before its first RDMA connect sends no
 * connect request to the peer it connects to: a child JVM ({@link FirstConnectApp}) connects once to a server of
 * this one, while another server of this one listens on the peer's port 9 (where the room was once made). Each
 * accepts whatever connect request reaches it, so the first accepts exactly one connection and the other none.
 */
@RdmaDeviceTest
class NioConnectServiceDeviceTest {
    private static final int DISCARD = 9;

    @Test
    void theRoomIsMadeWithoutAConnectRequestToThePeer(Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        RdmaSelectorProvider provider = DeviceSupport.rdmaProvider(ip);
        try (ServerSocketChannel asked = provider.openServerSocketChannel().bind(new InetSocketAddress(ip, 0));
             ServerSocketChannel discard = provider.openServerSocketChannel()
                     .bind(new InetSocketAddress(ip, DISCARD))) {
            int port = ((InetSocketAddress) asked.getLocalAddress()).getPort();
            ChildJvm child = ChildJvm.run(FirstConnectApp.class, 300,
                    List.of("-D" + ConnectService.PROPERTY + "=on"), ip, Integer.toString(port));
            assertTrue(child.endedNormally(), child.output());
            asked.configureBlocking(false);
            discard.configureBlocking(false);
            try (SocketChannel accepted = asked.accept()) {
                assertNotNull(accepted, "the connect the child asked for reached its server");
            }
            assertNull(asked.accept(), "the child's only connect request to its server was the one it asked for");
            assertNull(discard.accept(), "a connect request of the child reached port " + DISCARD + " of its peer");
            assertEquals(1, child.output().lines().filter(l -> l.contains(ConnectService.PROPERTY)).count(),
                    "one log line says the room was made:\n" + child.output());
        }
    }
}
