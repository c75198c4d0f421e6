package io.jrdma.nativetest.cluster;

import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.AddressVector;
import io.jrdma.ibverbs.ConnectOptions;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.GlobalRoute;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.rdmacm.RdmaConnection;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

import static io.jrdma.nativetest.cluster.StreamAcrossNodesClusterTest.connect;
import static io.jrdma.nativetest.cluster.StreamAcrossNodesClusterTest.startEcho;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Across a router (the routed cluster: this node and its peer on two subnets, one IP hop apart): connection-managed
 * and hand-connected queue pairs reach the peer, and what a queue pair or an address handle sets in its GRH is what
 * the peer's interface captures (tcpdump): the traffic class as the IPv4 TOS byte. The hop limit is not the one set:
 * for RoCE the kernel resolves the route when the queue pair or address handle is made and takes the hop limit from
 * it (64, so 63 after the router), whatever the caller asked, so a hop limit of 1 still crosses the router.
 */
@ClusterTest
@Tag("routed")
class RoutedWireClusterTest {
    private static final Duration STEP = Duration.ofSeconds(60);
    private static final Pattern IP_HEADER = Pattern.compile("tos (0x\\p{XDigit}+), ttl (\\d+)");

    @Test
    void aConnectionManagedStreamCrossesTheRouter() throws Exception {
        ClusterNode peer = ClusterNode.peer();
        assertTrue(ClusterNode.routed());
        assertNotEquals(subnet(ClusterNode.localDataAddress().getHostAddress()),
                subnet(peer.dataAddress().getHostAddress()), "the peer is on another subnet");
        try (ClusterNode.Remote echo = startEcho(peer, 7401, NetworkFaultsClusterTest.QUICK);
             RdmaConnection c = connect(echo, peer, 7401, NetworkFaultsClusterTest.QUICK)) {
            StreamResult sent = new EchoStream(c, 4096, 6).run(1 << 20);
            c.close();
            assertEquals(sent, StreamResult.parse(echo.succeeded(STEP)));
        }
    }

    @ParameterizedTest(name = "{0}: hop limit {1}, traffic class {2}")
    @CsvSource({"rc, 64, 0x60", "rc, 1, 0x28", "ud, 64, 0xb8", "ud, 1, 0x10"})
    void theTrafficClassSetIsTheOneOnTheWireAndTheKernelSetsTheHopLimit(String type, int hopLimit, String tclass)
            throws Exception {
        ClusterNode peer = ClusterNode.peer();
        int trafficClass = Integer.decode(tclass);
        int port = 7410 + hopLimit + trafficClass;
        String here = ClusterNode.localDataAddress().getHostAddress();
        try (ClusterNode.Remote capture = peer.start("tcpdump", "-i", "eth0", "-nn", "-v", "-Q", "in", "-c", "1",
                "udp dst port 4791 and src host " + here);
             ClusterNode.Remote receiver = peer.call(WireReceiverTask.class, type, Integer.toString(port));
             WireEnd end = new WireEnd(QpType.valueOf(type.toUpperCase(Locale.ROOT)));
             Socket socket = connectControl(peer, port)) {
            awaitCapturing(capture);
            Endpoint remote = end.trade(socket);
            ConnectOptions options = end.options.hopLimit(hopLimit).trafficClass(trafficClass);
            end.ready(remote, options);
            assertEquals(1, socket.getInputStream().read(), "the receiver posted its receive");
            byte[] message = ("across the router with traffic class " + tclass).getBytes(StandardCharsets.US_ASCII);
            end.mr.segment().asSlice(0, message.length).copyFrom(MemorySegment.ofArray(message));
            SendWorkRequest wr = new SendWorkRequest(1).id(1).opcode(SendOpcode.SEND).signaled(true)
                    .add(end.mr, 0, message.length);
            if (end.qp.type() == QpType.UD) {
                AddressVector path = AddressVector.to(remote, 1, end.gidIndex).withGlobalRoute(
                        GlobalRoute.to(remote.gid(), end.gidIndex).withHopLimit(hopLimit).withTrafficClass(trafficClass));
                try (AddressHandle ah = end.pd.createAddressHandle(path)) {
                    end.qp.postSend(wr.datagram(ah, remote.qpn(), WireEnd.QKEY));
                    assertEquals(WcStatus.SUCCESS, DeviceSupport.awaitCompletion(end.cq).status(0));
                }
            } else {
                end.qp.postSend(wr);
                assertEquals(WcStatus.SUCCESS, DeviceSupport.awaitCompletion(end.cq).status(0));
            }
            CRC32 crc = new CRC32();
            crc.update(message);
            assertEquals(new StreamResult(message.length, crc.getValue()), StreamResult.parse(receiver.succeeded(STEP)));
            String wire = capture.succeeded(STEP);
            Matcher m = IP_HEADER.matcher(wire);
            assertTrue(m.find(), "an IPv4 header in the capture:\n" + wire);
            System.out.printf(Locale.ROOT, "%s, hop limit %d, traffic class %s: on the peer's wire %s%n", type,
                    hopLimit, tclass, m.group());
            assertEquals(trafficClass, Integer.decode(m.group(1)), "the TOS byte is the traffic class:\n" + wire);
            assertEquals(63, Integer.parseInt(m.group(2)), "the route's hop limit less the router's hop:\n" + wire);
        }
    }

    private static String subnet(String address) {
        return address.substring(0, address.lastIndexOf('.'));
    }

    /** Connects to the receiver's control port once it listens. */
    private static Socket connectControl(ClusterNode peer, int port) throws Exception {
        peer.awaitListening(port, STEP);
        return new Socket(peer.controlAddress(), port);
    }

    /** Waits until tcpdump on the peer has its filter in place (it says so before it captures). */
    private static void awaitCapturing(ClusterNode.Remote capture) throws Exception {
        long deadline = System.nanoTime() + STEP.toNanos();
        while (true) {
            NodeAgent.Outcome o = capture.await(Duration.ofMillis(200));
            if (o.output().contains("listening on")) {
                return;
            }
            if (o.status() != NodeAgent.RUNNING || System.nanoTime() > deadline) {
                throw new AssertionError("tcpdump did not start capturing: " + o.output());
            }
        }
    }
}
