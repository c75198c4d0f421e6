package io.jrdma.nativetest.cm;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Ece;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpAttribute;
import io.jrdma.ibverbs.QpAttributes;
import io.jrdma.ibverbs.QpState;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.RdmaUnsupportedException;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.rdmacm.CmEvent;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static io.jrdma.nativetest.support.DeviceSupport.ipAddress;
import static io.jrdma.nativetest.support.DeviceSupport.sendText;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Queue pairs the application built with the verbs API, connected through connection-manager ids: brought up with
 * the id's attributes, established by hand, with ECE offers; and each id option, observed where it acts.
 */
@RdmaDeviceTest
class CmQueuePairControlDeviceTest {
    private static final Duration T = Duration.ofSeconds(10);
    private static final int TOS = 0x20;
    private static final int ACK_TIMEOUT = 17;

    /** One side's verbs objects on its id's context; the queue pair is made by ibverbs, not by the id. */
    private record Own(ProtectionDomain pd, CompletionQueue cq, QueuePair qp, MemoryRegion mr)
            implements DeviceSupport.QpSide {
        static Own on(CmId id) throws Exception {
            Context ctx = id.context();
            ProtectionDomain pd = ctx.allocateProtectionDomain();
            CompletionQueue cq = ctx.createCompletionQueue(16);
            QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq).capacity(8, 8).create();
            MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            return new Own(pd, cq, qp, mr);
        }
    }

    private static void bringUp(CmId id, QueuePair qp) throws RdmaException {
        for (QpState state : List.of(QpState.INIT, QpState.RTR, QpState.RTS)) {
            qp.modify(id.queuePairAttributes(state));
        }
    }

    /** The active side disconnects; each side hears it once the other has answered. */
    private static void disconnect(CmId active, CmId passive) throws Exception {
        active.disconnect();
        passive.await(T, CmEventType.DISCONNECTED);
        passive.disconnect();
        active.await(T, CmEventType.DISCONNECTED);
    }

    private static InetSocketAddress listen(CmId listener, InetAddress ip) throws Exception {
        listener.bind(new InetSocketAddress(ip, 0));
        listener.listen(4);
        return listener.localAddress();
    }

    @Test
    void ownQueuePairsBroughtUpByTheIdsCarryASendAndAnRdmaWrite(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        try (EventChannel serverEvents = EventChannel.create(); EventChannel clientEvents = EventChannel.create();
             CmId listener = CmId.create(serverEvents, PortSpace.TCP);
             CmId client = CmId.create(clientEvents, PortSpace.TCP)) {
            client.setTypeOfService(TOS);
            client.setAckTimeout(ACK_TIMEOUT);
            client.resolve(listen(listener, ip), T);
            try (Own c = Own.on(client)) {
                assertEquals(QpState.RESET, c.qp().state());
                assertEquals(0, client.queuePairAttributes(QpState.INIT).accessFlags(),
                        "before the connection the id grants no remote access");
                QpAttributes early = client.queuePairAttributes(QpState.RTR);
                assertFalse(early.has(QpAttribute.DEST_QPN) || early.has(QpAttribute.AV),
                        "no peer before the connection: " + early);
                client.connect(ConnectionParameters.defaults().withQpNumber(c.qp().qpNumber()));
                CmEvent request = listener.await(T, CmEventType.CONNECT_REQUEST);
                assertEquals(c.qp().qpNumber(), request.connection().qpNumber(), "the request names our queue pair");
                CmId accepted = request.id();
                try (Own s = Own.on(accepted)) {
                    bringUp(accepted, s.qp());
                    QpAttributes server = s.qp().query();
                    assertEquals(QpState.RTS, server.state());
                    assertEquals(c.qp().qpNumber(), server.destQpNumber());
                    assertTrue((server.accessFlags() & Access.REMOTE_WRITE.mask()) != 0,
                            "the connection lets the client write: " + server.accessFlags());
                    accepted.accept(ConnectionParameters.defaults().withQpNumber(s.qp().qpNumber()));

                    CmEvent response = client.await(T, CmEventType.CONNECT_RESPONSE);
                    assertEquals(s.qp().qpNumber(), response.connection().qpNumber());
                    QpAttributes rtr = client.queuePairAttributes(QpState.RTR);
                    assertEquals(QpState.RTR, rtr.state());
                    assertTrue(rtr.attributes().containsAll(List.of(QpAttribute.AV, QpAttribute.PATH_MTU,
                            QpAttribute.DEST_QPN, QpAttribute.RQ_PSN, QpAttribute.MAX_DEST_RD_ATOMIC)), rtr.toString());
                    assertEquals(s.qp().qpNumber(), rtr.destQpNumber());
                    assertEquals(server.sendPsn(), rtr.receivePsn(), "the client receives from the server's PSN");
                    assertEquals(TOS, rtr.addressVector().globalRoute().trafficClass(), "the id's type of service");
                    QpAttributes rts = client.queuePairAttributes(QpState.RTS);
                    assertEquals(ACK_TIMEOUT, rts.timeout(), "the id's ACK timeout");
                    assertEquals(rts.sendPsn(), server.receivePsn(), "the server receives from the client's PSN");

                    bringUp(client, c.qp());
                    client.establish();
                    accepted.await(T, CmEventType.ESTABLISHED);
                    assertNull(clientEvents.poll(Duration.ofMillis(200)), "establish brings the active side no event");
                    QpAttributes mine = c.qp().query();
                    assertEquals(QpState.RTS, mine.state());
                    assertEquals(TOS, mine.addressVector().globalRoute().trafficClass());
                    assertEquals(ACK_TIMEOUT, mine.timeout());

                    assertEquals("sent over our own queue pairs", sendText(s, c, "sent over our own queue pairs"));

                    c.mr().segment().setString(1024, "written by the client");
                    c.qp().postSend(new SendWorkRequest(1).id(3).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                            .add(c.mr(), 1024, 64).rdma(s.mr().address() + 2048, s.mr().remoteKey()));
                    assertEquals(WcStatus.SUCCESS, awaitCompletion(c.cq()).status(0));
                    assertEquals("written by the client", s.mr().segment().getString(2048));

                    disconnect(client, accepted);
                }
                accepted.close();
            }
        }
    }

    @Test
    void eceOffersTravelWithTheConnectionWhileSoftRoceRefusesThemOnItsQueuePairs(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        Ece clientOffer = new Ece(0x15b3, 0x5);
        Ece serverOffer = new Ece(0x15b3, 0x1);
        try (EventChannel events = EventChannel.create();
             CmId listener = CmId.create(events, PortSpace.TCP);
             CmId client = CmId.create(events, PortSpace.TCP)) {
            client.resolve(listen(listener, ip), T);
            try (Own c = Own.on(client)) {
                RdmaException query = assertThrows(RdmaUnsupportedException.class, () -> c.qp().ece());
                assertEquals("EOPNOTSUPP", query.errnoName(), query.getMessage());
                assertTrue(query.getMessage().contains("ECE") && query.getMessage().contains(ctx.device().name()),
                        query.getMessage());
                RdmaException set = assertThrows(RdmaUnsupportedException.class, () -> c.qp().setEce(clientOffer));
                assertEquals("EOPNOTSUPP", set.errnoName(), set.getMessage());
                assertTrue(set.getMessage().contains("ibv_set_ece"), set.getMessage());

                assertThrows(IllegalArgumentException.class, () -> client.setLocalEce(new Ece(0, 1)));
                client.setLocalEce(clientOffer);
                client.connect(ConnectionParameters.defaults().withQpNumber(c.qp().qpNumber()));
                CmId accepted = listener.await(T, CmEventType.CONNECT_REQUEST).id();
                try (Own s = Own.on(accepted)) {
                    assertEquals(clientOffer, accepted.remoteEce(), "the request carried the client's offer");
                    accepted.setLocalEce(serverOffer);
                    bringUp(accepted, s.qp());
                    accepted.accept(ConnectionParameters.defaults().withQpNumber(s.qp().qpNumber()));
                    client.await(T, CmEventType.CONNECT_RESPONSE);
                    assertEquals(serverOffer, client.remoteEce(), "the reply carried the server's options");
                    bringUp(client, c.qp());
                    client.establish();
                    accepted.await(T, CmEventType.ESTABLISHED);
                    disconnect(client, accepted);
                }
                accepted.close();
            }
        }
    }

    @Test
    void reuseAddressAndAddressFamilyOnlyDecideWhoSharesAPort(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        InetAddress any6 = InetAddress.getByName("::");
        InetAddress any4 = InetAddress.getByName("0.0.0.0");
        try (EventChannel events = EventChannel.create();
             CmId first = CmId.create(events, PortSpace.TCP);
             CmId second = CmId.create(events, PortSpace.TCP);
             CmId third = CmId.create(events, PortSpace.TCP);
             CmId only6 = CmId.create(events, PortSpace.TCP);
             CmId beside = CmId.create(events, PortSpace.TCP);
             CmId both = CmId.create(events, PortSpace.TCP);
             CmId refused = CmId.create(events, PortSpace.TCP)) {
            first.setReuseAddress(true);
            first.bind(new InetSocketAddress(ip, 0));
            InetSocketAddress shared = first.localAddress();
            second.setReuseAddress(true);
            second.bind(shared);
            assertEquals(shared, second.localAddress(), "ids that all ask for REUSEADDR share the port");
            RdmaException inUse = assertThrows(RdmaException.class, () -> third.bind(shared), "third did not ask");
            assertEquals("EADDRINUSE", inUse.errnoName(), inUse.getMessage());

            only6.setAddressFamilyOnly(true);
            only6.bind(new InetSocketAddress(any6, 0));
            int port = only6.localAddress().getPort();
            beside.bind(new InetSocketAddress(any4, port));
            assertEquals(port, beside.localAddress().getPort(), "beside an IPv6-only id, IPv4 has the port to itself");

            both.setAddressFamilyOnly(false);
            both.bind(new InetSocketAddress(any6, 0));
            int taken = both.localAddress().getPort();
            RdmaException e = assertThrows(RdmaException.class,
                    () -> refused.bind(new InetSocketAddress(any4, taken)));
            assertTrue(e.errnoName().equals("EADDRNOTAVAIL") || e.errnoName().equals("EADDRINUSE"), e.getMessage());

            both.listen(1);
            RdmaException late = assertThrows(RdmaException.class, () -> both.setAddressFamilyOnly(true));
            assertEquals("EINVAL", late.errnoName(), "a listening id keeps its family rule: " + late.getMessage());
        }
    }

    @Test
    void ownQueuePairCallsAreRefusedWhereTheyCannotApply(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        try (EventChannel events = EventChannel.create();
             CmId listener = CmId.create(events, PortSpace.TCP);
             CmId managed = CmId.create(events, PortSpace.TCP);
             CmId bare = CmId.create(events, PortSpace.TCP)) {
            assertThrows(IllegalArgumentException.class, () -> bare.queuePairAttributes(QpState.SQD));
            RdmaException noDevice = assertThrows(RdmaException.class, () -> bare.queuePairAttributes(QpState.INIT));
            assertEquals("rdma_init_qp_attr", noDevice.verb(), noDevice.getMessage());
            assertThrows(IllegalArgumentException.class, () -> bare.connect(ConnectionParameters.defaults()),
                    "no queue pair of the id, and none named");
            assertThrows(IllegalArgumentException.class, () -> bare.accept(ConnectionParameters.defaults()));

            try (CmId datagrams = CmId.create(events, PortSpace.UDP)) {
                datagrams.bind(new InetSocketAddress(ip, 0));
                assertEquals(EnumSet.of(QpAttribute.STATE, QpAttribute.PKEY_INDEX, QpAttribute.PORT, QpAttribute.QKEY),
                        datagrams.queuePairAttributes(QpState.RTS).attributes(), "a UD id gives INIT's attributes");
            }

            managed.resolve(listen(listener, ip), T);
            Context context = managed.context();
            try (ProtectionDomain pd = context.allocateProtectionDomain();
                 CompletionQueue cq = context.createCompletionQueue(4);
                 QueuePair qp = managed.createQueuePair(pd.queuePair(QpType.RC).completionQueue(cq))) {
                assertEquals(QpState.INIT, qp.state(), "the connection manager moved its own queue pair");
                assertThrows(IllegalStateException.class, managed::establish);
                assertThrows(IllegalStateException.class, () -> managed.setLocalEce(new Ece(0x15b3, 1)));
                assertThrows(IllegalStateException.class, managed::remoteEce);
            }
        }
    }
}
