package io.jrdma.junit.snippets;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.PortState;
import io.jrdma.ibverbs.Device;
import io.jrdma.junit.ChildServer;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceExtension;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Tests on a real device. Never run: the nested classes are examples only. */
final class RdmaDeviceTestSnippets {

    // @start region="annotation"
    @RdmaDeviceTest
    static class PortTest {
        @Test
        void portIsActive(Context ctx) throws Exception {   // opened before the test, closed after it
            assertEquals(PortState.ACTIVE, ctx.queryPort(1).state());
        }
    }
    // @end

    // @start region="extension"
    @ExtendWith(RdmaDeviceExtension.class)
    @Tag("device")
    static class MyTest {
        @Test
        void t(Context ctx) {
            // ...
        }
    }
    // @end

    // @start region="address"
    @RdmaDeviceTest
    static class AddressTest {
        @Test
        void deviceHasAnAddress(Device device) throws Exception {
            InetAddress ip = DeviceAddresses.ipv4(device);   // e.g. rxe0's netdev's; -Djrdma.test.address overrides
            // ... listen and connect through the connection manager on ip ...
        }
    }
    // @end

    // @start region="child"
    /** Started by the test below in a JVM of its own: listens, prints its port, runs until killed. */
    static final class Server {
        public static void main(String[] args) throws Exception {
            // ... listen on args[0] ...
            int port = 7471;
            System.out.println("listening " + port);
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    @RdmaDeviceTest
    static class KilledPeerTest {
        @Test
        void aKilledPeerIsNoticed(Device device) throws Exception {
            InetAddress ip = DeviceAddresses.ipv4(device);
            try (ChildServer server = ChildServer.start(Server.class, ip.getHostAddress())) {
                // ... connect to ip:server.port() and start sending ...
                server.kill();
                // ... every operation in flight fails, the connection closes ...
            }
        }
    }
    // @end
}
