package io.jrdma.nativetest.cm;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.AsyncEventType;
import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpState;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.rdmacm.AddressInfo;
import io.jrdma.rdmacm.CmEvent;
import io.jrdma.rdmacm.CmEventException;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;
import io.jrdma.rdmacm.UdParameters;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static io.jrdma.nativetest.support.DeviceSupport.ipAddress;
import static io.jrdma.nativetest.support.DeviceSupport.sendText;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The low-level connection manager on a real device: both sides in this process, driven by their events. */
@RdmaDeviceTest
class ConnectionManagerDeviceTest {
    private static final Duration T = Duration.ofSeconds(10);

    /** One side's verbs objects, made on its id's device context. */
    private record Side(CmId id, ProtectionDomain pd, CompletionQueue cq, QueuePair qp, MemoryRegion mr)
            implements DeviceSupport.QpSide {
        static Side on(CmId id, QpType type) throws Exception {
            Context ctx = id.context();
            ProtectionDomain pd = ctx.allocateProtectionDomain();
            CompletionQueue cq = ctx.createCompletionQueue(16);
            QueuePair qp = id.createQueuePair(pd.queuePair(type).completionQueue(cq).capacity(8, 8));
            MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE);
            return new Side(id, pd, cq, qp, mr);
        }
    }

    /** Makes {@code listener} listen on {@code ip} and resolves {@code client} to it. */
    private static void listenAndResolve(CmId listener, CmId client, InetAddress ip) throws Exception {
        client.resolve(listen(listener, ip), T);
    }

    private static InetSocketAddress listen(CmId listener, InetAddress ip) throws Exception {
        listener.bind(new InetSocketAddress(ip, 0));
        listener.listen(8);
        InetSocketAddress bound = listener.localAddress();
        assertEquals(ip, bound.getAddress());
        assertTrue(bound.getPort() > 0, "bound to an ephemeral port: " + bound);
        return bound;
    }

    @Test
    void connectAcceptAndDisconnectCarryPrivateDataBothWays(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        byte[] hello = "hello from the client".getBytes(StandardCharsets.US_ASCII);
        byte[] welcome = "welcome, says the server".getBytes(StandardCharsets.US_ASCII);
        try (EventChannel serverEvents = EventChannel.create(); EventChannel clientEvents = EventChannel.create();
             CmId listener = CmId.create(serverEvents, PortSpace.TCP);
             CmId client = CmId.create(clientEvents, PortSpace.TCP)) {
            InetSocketAddress service = listen(listener, ip);
            client.resolve(service, T);
            assertEquals(service, client.peerAddress());
            assertTrue(client.portNumber() >= 1);
            try (Side c = Side.on(client, QpType.RC)) {
                client.connect(ConnectionParameters.defaults().withPrivateData(hello));
                CmEvent request = listener.await(T, CmEventType.CONNECT_REQUEST);
                assertEquals(listener, request.listenId());
                assertArrayEquals(hello, Arrays.copyOf(request.privateData(), hello.length));
                CmId accepted = request.id();
                assertEquals(client.localAddress(), accepted.peerAddress());
                try (Side s = Side.on(accepted, QpType.RC)) {
                    // The connection manager took the new queue pair to INIT; accept takes it to RTS.
                    assertEquals(QpState.INIT, s.qp().state());
                    accepted.accept(ConnectionParameters.defaults().withPrivateData(welcome));
                    CmEvent established = client.await(T, CmEventType.ESTABLISHED);
                    assertArrayEquals(welcome, Arrays.copyOf(established.privateData(), welcome.length));
                    accepted.await(T, CmEventType.ESTABLISHED);
                    assertEquals(QpState.RTS, c.qp().state());

                    // The queue pairs are connected to each other: a send arrives.
                    assertEquals("over the CM's queue pair", sendText(s, c, "over the CM's queue pair"));

                    // The side that disconnects hears DISCONNECTED once the other side answers with its own.
                    client.disconnect();
                    accepted.await(T, CmEventType.DISCONNECTED);
                    accepted.disconnect();
                    client.await(T, CmEventType.DISCONNECTED);
                    assertEquals(QpState.ERR, c.qp().state());
                    assertEquals(QpState.ERR, s.qp().state());
                }
                accepted.close();
            }
        }
    }

    @Test
    void aRejectTellsTheClientWhyAndWhatTheServerSaid(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        byte[] no = "no room for you".getBytes(StandardCharsets.US_ASCII);
        try (EventChannel events = EventChannel.create();
             CmId listener = CmId.create(events, PortSpace.TCP);
             CmId client = CmId.create(events, PortSpace.TCP)) {
            listenAndResolve(listener, client, ip);
            try (Side c = Side.on(client, QpType.RC)) {
                client.connect(ConnectionParameters.defaults());
                CmId request = listener.await(T, CmEventType.CONNECT_REQUEST).id();
                assertThrows(IllegalArgumentException.class, () -> request.reject(new byte[149]));
                request.reject(no);
                CmEventException e = assertThrows(CmEventException.class,
                        () -> client.await(T, CmEventType.ESTABLISHED));
                assertEquals(CmEventType.REJECTED, e.event().type());
                assertEquals(28, e.event().status(), "consumer-defined reject");
                assertTrue(e.getMessage().contains("rejected by the peer's application"), e.getMessage());
                assertArrayEquals(no, Arrays.copyOf(e.event().privateData(), no.length));
                request.close();
            }
        }
    }

    @Test
    void connectingWhereNobodyListensIsRejected(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        int freePort;
        try (EventChannel events = EventChannel.create(); CmId probe = CmId.create(events, PortSpace.TCP)) {
            probe.bind(new InetSocketAddress(ip, 0));
            freePort = probe.localAddress().getPort();
        }
        try (EventChannel events = EventChannel.create(); CmId client = CmId.create(events, PortSpace.TCP)) {
            client.resolve(new InetSocketAddress(ip, freePort), T);
            try (Side c = Side.on(client, QpType.RC)) {
                client.connect(ConnectionParameters.defaults());
                CmEventException e = assertThrows(CmEventException.class,
                        () -> client.await(T, CmEventType.ESTABLISHED));
                assertNotNull(e.event(), e.getMessage());
                assertTrue(e.event().type() == CmEventType.REJECTED || e.event().type() == CmEventType.UNREACHABLE,
                        e.getMessage());
                assertEquals("rdma_connect", e.verb());
            }
        }
    }

    @Test
    void resolvingAnAddressNobodyHasFailsWithinItsTimeout(Context ctx) throws Exception {
        byte[] mine = ipAddress(ctx).getAddress();
        // The last address of the device's /24, which nothing in the test network answers for.
        InetAddress nobody = InetAddress.getByAddress(new byte[] {mine[0], mine[1], mine[2], (byte) 254});
        try (EventChannel events = EventChannel.create(); CmId client = CmId.create(events, PortSpace.TCP)) {
            long start = System.nanoTime();
            client.resolveAddress(null, new InetSocketAddress(nobody, 7471), Duration.ofSeconds(1));
            CmEventException e = assertThrows(CmEventException.class,
                    () -> client.await(Duration.ofSeconds(30), CmEventType.ADDR_RESOLVED));
            assertNotNull(e.event(), "an error event, not our own deadline: " + e.getMessage());
            assertEquals(CmEventType.ADDR_ERROR, e.event().type(), e.getMessage());
            assertTrue(e.errno() > 0, e.getMessage());
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(30).toNanos());
        }
    }

    @Test
    void awaitingAnEventThatNeverComesTimesOutClearly(Context ctx) throws Exception {
        try (EventChannel events = EventChannel.create(); CmId listener = CmId.create(events, PortSpace.TCP)) {
            listen(listener, ipAddress(ctx));
            CmEventException e = assertThrows(CmEventException.class,
                    () -> listener.await(Duration.ofMillis(200), CmEventType.CONNECT_REQUEST));
            assertNull(e.event());
            assertEquals("ETIMEDOUT", e.errnoName());
            assertNull(events.poll(Duration.ofMillis(50)));
        }
    }

    @Test
    void datagramServiceResolutionGivesAnAddressHandleThatReachesTheServer(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        byte[] note = "ud please".getBytes(StandardCharsets.US_ASCII);
        try (EventChannel events = EventChannel.create();
             CmId listener = CmId.create(events, PortSpace.UDP);
             CmId client = CmId.create(events, PortSpace.UDP)) {
            listenAndResolve(listener, client, ip);
            try (Side c = Side.on(client, QpType.UD)) {
                // A UD queue pair made through the CM is ready to send at once.
                assertEquals(QpState.RTS, c.qp().state());
                client.connect(ConnectionParameters.defaults().withPrivateData(note));
                CmEvent request = listener.await(T, CmEventType.CONNECT_REQUEST);
                assertNotNull(request.datagram(), "a UD request carries UD parameters");
                assertArrayEquals(note, Arrays.copyOf(request.privateData(), note.length));
                CmId server = request.id();
                try (Side s = Side.on(server, QpType.UD)) {
                    s.qp().postReceive(new ReceiveWorkRequest(1).id(7).add(s.mr(), 0, AddressHandle.GRH_BYTES + 64));
                    server.accept(ConnectionParameters.defaults());
                    UdParameters ud = client.await(T, CmEventType.ESTABLISHED).datagram();
                    assertEquals(s.qp().qpNumber(), ud.qpNumber());
                    try (AddressHandle ah = ud.createAddressHandle(c.pd())) {
                        c.mr().segment().setString(0, "datagram via the CM");
                        c.qp().postSend(new SendWorkRequest(1).opcode(SendOpcode.SEND).signaled(true)
                                .datagram(ah, ud.qpNumber(), ud.qkey()).add(c.mr(), 0, 64));
                        assertEquals(WcStatus.SUCCESS, awaitCompletion(c.cq()).status(0));
                        WorkCompletions wc = awaitCompletion(s.cq());
                        assertEquals(WcStatus.SUCCESS, wc.status(0));
                        assertEquals("datagram via the CM", s.mr().segment().getString(AddressHandle.GRH_BYTES));
                    }
                }
                server.close();
            }
        }
    }

    @Test
    void aMulticastDatagramReachesEveryMember(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        InetSocketAddress group = new InetSocketAddress(InetAddress.getByName("239.255.77.1"), 0);
        try (EventChannel events = EventChannel.create();
             CmId a = CmId.create(events, PortSpace.UDP);
             CmId b = CmId.create(events, PortSpace.UDP);
             CmId sender = CmId.create(events, PortSpace.UDP)) {
            for (CmId id : List.of(a, b, sender)) {
                id.bind(new InetSocketAddress(ip, 0));
            }
            try (Side ma = Side.on(a, QpType.UD); Side mb = Side.on(b, QpType.UD); Side s = Side.on(sender, QpType.UD)) {
                for (Side m : List.of(ma, mb)) {
                    m.qp().postReceive(new ReceiveWorkRequest(1).add(m.mr(), 0, AddressHandle.GRH_BYTES + 64));
                }
                UdParameters toGroup = null;
                for (CmId id : List.of(a, b, sender)) {
                    id.joinMulticast(group);
                    toGroup = id.await(T, CmEventType.MULTICAST_JOIN).datagram();
                }
                try (AddressHandle ah = toGroup.createAddressHandle(s.pd())) {
                    s.mr().segment().setString(0, "to all members");
                    s.qp().postSend(new SendWorkRequest(1).opcode(SendOpcode.SEND).signaled(true)
                            .datagram(ah, toGroup.qpNumber(), toGroup.qkey()).add(s.mr(), 0, 64));
                    assertEquals(WcStatus.SUCCESS, awaitCompletion(s.cq()).status(0));
                    for (Side m : List.of(ma, mb)) {
                        assertEquals(WcStatus.SUCCESS, awaitCompletion(m.cq()).status(0));
                        assertEquals("to all members", m.mr().segment().getString(AddressHandle.GRH_BYTES));
                    }
                }
                for (CmId id : List.of(a, b, sender)) {
                    id.leaveMulticast(group);
                }
            }
        }
    }

    @Test
    void endpointsFromAddressInfoConnectAndMigratedIdsReportOnTheirNewChannel(Context ctx) throws Exception {
        String ip = ipAddress(ctx).getHostAddress();
        try (EventChannel events = EventChannel.create(); EventChannel moved = EventChannel.create()) {
            AddressInfo passive = AddressInfo.lookup(ip, "0", true, PortSpace.TCP).getFirst();
            assertTrue(passive.passive());
            assertEquals(QpType.RC, passive.qpType());
            try (CmId listener = CmId.createEndpoint(passive, events)) {
                listener.listen(4);
                int port = listener.localAddress().getPort();
                AddressInfo active = AddressInfo.lookup(ip, Integer.toString(port), false, PortSpace.TCP).getFirst();
                assertEquals(port, active.destination().getPort());
                try (CmId client = CmId.createEndpoint(active, events); Side c = Side.on(client, QpType.RC)) {
                    client.connect(ConnectionParameters.defaults());
                    CmId accepted = listener.await(T, CmEventType.CONNECT_REQUEST).id();
                    accepted.migrate(moved);
                    assertEquals(moved, accepted.channel());
                    try (Side s = Side.on(accepted, QpType.RC)) {
                        accepted.accept(ConnectionParameters.defaults());
                        client.await(T, CmEventType.ESTABLISHED);
                        CmEvent there = moved.poll(T);
                        assertEquals(CmEventType.ESTABLISHED, there.type());
                        assertEquals(accepted, there.id());
                        accepted.disconnect();
                        client.await(T, CmEventType.DISCONNECTED);
                        client.disconnect();
                        assertEquals(CmEventType.DISCONNECTED, moved.poll(T).type());
                    }
                    // The id now belongs to the new channel: the old one could close, the new one cannot.
                    assertThrows(IllegalStateException.class, moved::close);
                    accepted.close();
                }
            }
        }
    }

    @Test
    void idOptionsReachTheQueuePairAndNotifyCompletesTheConnection(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        try (EventChannel events = EventChannel.create();
             CmId listener = CmId.create(events, PortSpace.TCP);
             CmId client = CmId.create(events, PortSpace.TCP)) {
            listener.setReuseAddress(true);
            client.setTypeOfService(0x20);
            client.setAckTimeout(17);
            assertThrows(IllegalArgumentException.class, () -> client.setAckTimeout(32));
            listenAndResolve(listener, client, ip);
            try (Side c = Side.on(client, QpType.RC)) {
                client.connect(ConnectionParameters.defaults());
                CmId accepted = listener.await(T, CmEventType.CONNECT_REQUEST).id();
                try (Side s = Side.on(accepted, QpType.RC)) {
                    accepted.accept(ConnectionParameters.defaults());
                    // As if data had come first: the CM completes the connection without waiting for the client's
                    // ready-to-use message, unless that message won the race.
                    try {
                        accepted.notify(AsyncEventType.COMM_EST);
                    } catch (RdmaException alreadyEstablished) {
                        assertEquals("EISCONN", alreadyEstablished.errnoName(), alreadyEstablished.getMessage());
                    }
                    accepted.await(T, CmEventType.ESTABLISHED);
                    client.await(T, CmEventType.ESTABLISHED);
                    assertEquals(17, c.qp().query().timeout(), "the ACK timeout the id was given");
                    assertEquals(QpState.RTS, s.qp().state());
                }
                accepted.close();
            }
        }
    }

    @Test
    void misuseIsRefusedBeforeAnyNativeCall(Context ctx) throws Exception {
        try (EventChannel events = EventChannel.create(); CmId id = CmId.create(events, PortSpace.TCP)) {
            assertThrows(IllegalStateException.class, id::context, "no device before bind or resolve");
            assertThrows(IllegalArgumentException.class,
                    () -> id.connect(ConnectionParameters.defaults().withPrivateData(new byte[57])));
            assertThrows(IllegalArgumentException.class, () -> ConnectionParameters.defaults().withRnrRetryCount(8));
            assertThrows(IllegalArgumentException.class,
                    () -> id.resolveAddress(null, InetSocketAddress.createUnresolved("peer", 1), T));
            assertThrows(IllegalArgumentException.class, () -> id.resolveRoute(Duration.ZERO));
            assertThrows(IllegalStateException.class, events::close, "the channel still has its id");
            id.close();
            assertThrows(IllegalStateException.class, () -> id.bind(new InetSocketAddress(0)));
        }
    }
}
