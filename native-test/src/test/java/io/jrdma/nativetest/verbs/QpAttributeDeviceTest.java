package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.AddressVector;
import io.jrdma.ibverbs.AlternatePath;
import io.jrdma.ibverbs.AsyncEvent;
import io.jrdma.ibverbs.AsyncEventType;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.GlobalRoute;
import io.jrdma.ibverbs.LinkLayer;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.MigrationState;
import io.jrdma.ibverbs.Mtu;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpAttributes;
import io.jrdma.ibverbs.QpState;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.RdmaUnsupportedException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.SharedReceiveQueue;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.RcPair;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static io.jrdma.nativetest.verbs.RcDataPathDeviceTest.expect;
import static io.jrdma.nativetest.verbs.RcDataPathDeviceTest.fill;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The typed attribute API against the device: what modify sets, query returns; the transition table's refusals;
 * GRH fields on the wire; CQ moderation, SRQ resize and the extended SRQ verbs, or their clear refusal.
 */
@RdmaDeviceTest
class QpAttributeDeviceTest {
    private static final int EOPNOTSUPP = 95;
    private static final int EINVAL = 22;
    private static final int QKEY = 0x1234567;
    private static final int TRAFFIC_CLASS = 32;
    private static final int FLOW_LABEL = 0x12345;

    @Test
    void everyRcAttributeSetThroughModifyComesBackThroughQuery(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             QueuePair x = p.pd.queuePair(QpType.RC).completionQueue(p.cqA).create();
             QueuePair y = p.pd.queuePair(QpType.RC).completionQueue(p.cqB).create()) {
            Mtu mtu = ctx.queryPort(1).activeMtu();
            Endpoint toY = y.endpoint(1, p.gidIndex, 0x4242);
            x.modify(QpAttributes.builder().state(QpState.INIT).pkeyIndex(0).port(1)
                    .remoteAccess(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ).build());
            AddressVector path = path(toY, p.gidIndex).withServiceLevel(2);
            x.modify(QpAttributes.builder().state(QpState.RTR).addressVector(path).pathMtu(mtu)
                    .destQpNumber(toY.qpn()).receivePsn(toY.psn()).maxDestReadAtomic(4).minRnrTimer(14).build());
            QpAttributes rtr = x.query();
            assertEquals(QpState.RTR, rtr.state());
            assertEquals(mtu, rtr.pathMtu());
            assertEquals(y.qpNumber(), rtr.destQpNumber());
            assertEquals(0x4242, rtr.receivePsn());
            assertEquals(4, rtr.maxDestReadAtomic());
            assertEquals(14, rtr.minRnrTimer());
            assertEquals(1, rtr.port());
            assertEquals(0, rtr.pkeyIndex());
            assertEquals(Access.LOCAL_WRITE.mask() | Access.REMOTE_WRITE.mask() | Access.REMOTE_READ.mask(),
                    rtr.accessFlags());
            AddressVector back = rtr.addressVector();
            assertEquals(1, back.port());
            if (p.gidIndex < 0) {
                assertEquals(2, back.serviceLevel());
            } else {
                // RoCE headers carry no service level, and Soft-RoCE reports 0 for it; the GRH comes back whole.
                GlobalRoute grh = back.globalRoute();
                assertNotNull(grh, "the GRH comes back");
                assertEquals(64, grh.hopLimit());
                assertEquals(TRAFFIC_CLASS, grh.trafficClass());
                assertEquals(FLOW_LABEL, grh.flowLabel());
                assertEquals(p.gidIndex, grh.sgidIndex());
                assertArrayEquals(toY.gid(), grh.dgid());
            }

            x.modify(QpAttributes.builder().state(QpState.RTS).sendPsn(0x777).timeout(18).retryCount(5).rnrRetry(3)
                    .maxReadAtomic(2).build());
            QpAttributes rts = x.query();
            assertEquals(QpState.RTS, rts.state());
            assertEquals(0x777, rts.sendPsn());
            assertEquals(18, rts.timeout());
            assertEquals(5, rts.retryCount());
            assertEquals(3, rts.rnrRetry());
            assertEquals(2, rts.maxReadAtomic());
            assertEquals(4, rts.maxDestReadAtomic(), "RTR's value stays");

            x.modify(QpAttributes.builder().minRnrTimer(20).remoteAccess(Access.LOCAL_WRITE)
                    .migrationState(MigrationState.REARM).build());
            QpAttributes changed = x.query();
            assertEquals(QpState.RTS, changed.state(), "a modify without a state keeps it");
            assertEquals(20, changed.minRnrTimer());
            assertEquals(MigrationState.REARM, changed.migrationState());
            assertEquals(Access.LOCAL_WRITE.mask(), changed.accessFlags());
            assertTrue(changed.capabilities().maxSendWr() >= 16);
            assertFalse(changed.sqDraining());
        }
    }

    @Test
    void anAlternatePathIsKeptOnInfiniBandAndRefusedOnRoce(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            AddressVector alternate = path(p.b.endpoint(1, p.gidIndex, 0), p.gidIndex).withServiceLevel(1);
            QpAttributes load = QpAttributes.builder().alternatePath(new AlternatePath(alternate, 0, 1, 16))
                    .migrationState(MigrationState.REARM).build();
            if (ctx.queryPort(1).linkLayer() == LinkLayer.ETHERNET) {
                // The kernel's core bans alternate paths and path migration outside InfiniBand.
                RdmaException e = assertThrows(RdmaException.class, () -> p.a.modify(load));
                assertEquals(EINVAL, e.errno());
                assertTrue(e.getMessage().contains("RC RTS → RTS requires [], allows [CUR_STATE, ACCESS_FLAGS, "
                        + "ALT_PATH, MIN_RNR_TIMER, PATH_MIG_STATE]"), e.getMessage());
                assertEquals(QpState.RTS, p.a.state());
            } else {
                p.a.modify(load);
                AlternatePath back = p.a.query().alternatePath();
                assertEquals(1, back.port());
                assertEquals(16, back.timeout());
                assertEquals(1, back.addressVector().serviceLevel());
            }
        }
    }

    @Test
    void everyUdAttributeSetThroughModifyComesBackThroughQuery(Context ctx) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cq = ctx.createCompletionQueue(8);
             QueuePair ud = pd.queuePair(QpType.UD).completionQueue(cq).create()) {
            ud.modify(QpAttributes.builder().state(QpState.INIT).pkeyIndex(0).port(1).qkey(QKEY).build());
            ud.modify(QpAttributes.builder().state(QpState.RTR).build());
            ud.modify(QpAttributes.builder().state(QpState.RTS).sendPsn(0x4321).build());
            QpAttributes a = ud.query();
            assertEquals(QpState.RTS, a.state());
            assertEquals(QKEY, a.qkey());
            assertEquals(0x4321, a.sendPsn());
            assertEquals(1, a.port());
            ud.modify(QpAttributes.builder().qkey(QKEY + 1).build());
            assertEquals(QKEY + 1, ud.query().qkey(), "RTS → RTS takes a new Q_Key");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ud.modify(QpAttributes.builder().timeout(14).build()));
            assertTrue(e.getMessage().startsWith("UD RTS → RTS does not take [TIMEOUT]"), e.getMessage());
        }
    }

    @Test
    void aMissingRequiredAttributeIsRefusedBeforeTheDeviceAndAWrongTransitionIsExplained(Context ctx)
            throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             QueuePair x = p.pd.queuePair(QpType.RC).completionQueue(p.cqA).create()) {
            Endpoint toB = p.b.endpoint(1, p.gidIndex, 0);
            x.modify(QpAttributes.builder().state(QpState.INIT).pkeyIndex(0).port(1).remoteAccess().build());
            IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> x.modify(
                    QpAttributes.builder().state(QpState.RTR).addressVector(path(toB, p.gidIndex)).pathMtu(Mtu.MTU_1024)
                            .destQpNumber(toB.qpn()).receivePsn(0).maxDestReadAtomic(1).build()));
            assertTrue(missing.getMessage().startsWith("RC INIT → RTR is missing [MIN_RNR_TIMER]"),
                    missing.getMessage());
            assertEquals(QpState.INIT, x.state(), "nothing reached the device");

            RdmaException wrong = assertThrows(RdmaException.class,
                    () -> x.modify(QpAttributes.builder().state(QpState.RTS).sendPsn(0).build()));
            assertEquals(EINVAL, wrong.errno());
            assertTrue(wrong.getMessage().contains("INIT → RTS is no transition; from INIT a queue pair moves to "
                    + "[RESET, INIT, RTR, ERR]"), wrong.getMessage());
        }
    }

    @Test
    void aPairConnectedByHandThroughModifyWithHopLimit64MovesData(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             QueuePair x = p.pd.queuePair(QpType.RC).completionQueue(p.cqA).create();
             QueuePair y = p.pd.queuePair(QpType.RC).completionQueue(p.cqB).create()) {
            connectByHand(x, y.endpoint(1, p.gidIndex, 0x300), 0x500, p.gidIndex);
            connectByHand(y, x.endpoint(1, p.gidIndex, 0x500), 0x300, p.gidIndex);
            if (p.gidIndex >= 0) {
                assertEquals(64, x.query().addressVector().globalRoute().hopLimit());
                assertEquals(GlobalRoute.DEFAULT_HOP_LIMIT, p.a.query().addressVector().globalRoute().hopLimit(),
                        "connect(...) routes across routers too");
            }
            fill(p.mrA.segment(), 0, 2000, 5);
            x.postSend(new SendWorkRequest(1).id(1).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                    .add(p.mrA, 0, 2000).rdma(p.mrB.address() + 16, p.mrB.remoteKey()));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            expect(p.mrB.segment(), 16, 0, 2000, 5);
            y.postReceive(new ReceiveWorkRequest(1).id(2).add(p.mrB, 4096, 512));
            x.postSend(new SendWorkRequest(1).id(3).opcode(SendOpcode.SEND).signaled(true).add(p.mrA, 0, 512));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            WorkCompletions got = awaitCompletion(p.cqB);
            assertEquals(WcStatus.SUCCESS, got.status(0));
            assertEquals(512, got.byteLength(0));
            expect(p.mrB.segment(), 4096, 0, 512, 5);
        }
    }

    @Test
    void sendQueueDrainedReportsTheDrainEventAndReturnsToSend(Context ctx) throws Exception {
        BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
        ctx.onAsyncEvent(events::add);
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            p.a.modify(QpAttributes.builder().state(QpState.SQD).sqdAsyncNotify(true).build());
            AsyncEvent e = events.poll(10, TimeUnit.SECONDS);
            assertNotNull(e, "SQ_DRAINED arrived");
            assertEquals(AsyncEventType.SQ_DRAINED, e.type());
            assertSame(p.a, e.queuePair());
            QpAttributes drained = p.a.query();
            assertEquals(QpState.SQD, drained.state());
            assertFalse(drained.sqDraining());

            p.a.modify(QpAttributes.builder().state(QpState.SQD).minRnrTimer(9).timeout(16).build());
            assertEquals(16, p.a.query().timeout(), "SQD → SQD takes RC timers");
            p.a.modify(QpAttributes.builder().state(QpState.RTS).build());
            assertEquals(QpState.RTS, p.a.state());
            p.b.postReceive(new ReceiveWorkRequest(1).id(1).add(p.mrB, 0, 64));
            p.a.postSend(new SendWorkRequest(1).id(2).opcode(SendOpcode.SEND).signaled(true).add(p.mrA, 0, 64));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            assertEquals(1, awaitCompletion(p.cqB).id(0));
        }
    }

    @Test
    void aDatagramThroughAnAddressHandleWithAFullGrhArrivesCarryingIt(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             QueuePair a = p.pd.queuePair(QpType.UD).completionQueue(p.cqA).create();
             QueuePair b = p.pd.queuePair(QpType.UD).completionQueue(p.cqB).create()) {
            int gid = p.gidIndex;
            MemoryRegion mrA = p.mrA;
            MemoryRegion mrB = p.mrB;
            for (QueuePair qp : new QueuePair[] {a, b}) {
                qp.modify(QpAttributes.builder().state(QpState.INIT).pkeyIndex(0).port(1).qkey(QKEY).build());
                qp.modify(QpAttributes.builder().state(QpState.RTR).build());
                qp.modify(QpAttributes.builder().state(QpState.RTS).sendPsn(0).build());
            }
            int grh = AddressHandle.GRH_BYTES;
            b.postReceive(new ReceiveWorkRequest(1).id(1).add(mrB, 0, grh + 128));
            fill(mrA.segment(), 0, 128, 9);
            try (AddressHandle ah = p.pd.createAddressHandle(path(b.endpoint(1, gid, 0), gid).withServiceLevel(1))) {
                a.postSend(new SendWorkRequest(1).id(2).opcode(SendOpcode.SEND).signaled(true).add(mrA, 0, 128)
                        .datagram(ah, b.qpNumber(), QKEY));
                assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            }
            WorkCompletions got = awaitCompletion(p.cqB);
            assertEquals(WcStatus.SUCCESS, got.status(0));
            assertEquals(a.qpNumber(), got.sourceQp(0));
            expect(mrB.segment(), grh, 0, 128, 9);
            if (gid >= 0) {
                // RoCE v2 over IPv4: the last 20 bytes of the GRH slot hold the IPv4 header as it arrived.
                assertEquals(0x45, mrB.segment().get(ValueLayout.JAVA_BYTE, 20), "an IPv4 header");
                assertEquals(TRAFFIC_CLASS, Byte.toUnsignedInt(mrB.segment().get(ValueLayout.JAVA_BYTE, 21)),
                        "the traffic class is the TOS");
                assertEquals(64, Byte.toUnsignedInt(mrB.segment().get(ValueLayout.JAVA_BYTE, 28)),
                        "the hop limit is the TTL");
            }
        }
    }

    @Test
    void completionModerationWorksOrIsRefusedClearly(Context ctx) throws Exception {
        try (CompletionQueue cq = ctx.createCompletionQueue(16)) {
            assertThrows(IllegalArgumentException.class, () -> cq.moderate(1 << 16, 0));
            try {
                cq.moderate(8, 50);
            } catch (RdmaUnsupportedException refused) {
                assertEquals(EOPNOTSUPP, refused.errno(), refused.getMessage());
                assertTrue(refused.getMessage().contains(ctx.device().name()), refused.getMessage());
            }
        }
    }

    @Test
    void aResizedSharedReceiveQueueTakesMoreReceivesThanItsOldSize(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             SharedReceiveQueue srq = p.pd.createSharedReceiveQueue(16, 1);
             QueuePair s = p.pd.queuePair(QpType.RC).completionQueue(p.cqB).sharedReceiveQueue(srq).create();
             QueuePair c = p.pd.queuePair(QpType.RC).completionQueue(p.cqA).create()) {
            p.connect(s, c);
            int old = srq.query().maxWr();
            ReceiveWorkRequest rr = new ReceiveWorkRequest(1);
            for (int i = 0; i < old; i++) {
                srq.postReceive(rr.reset().id(i).add(p.mrB, 64L * i, 64));
            }
            assertThrows(RdmaException.class, () -> srq.postReceive(rr.reset().id(-1).add(p.mrB, 0, 64)),
                    "full at its old size");
            int size = srq.resize(old * 4);
            assertTrue(size >= old * 4, "resized to " + size);
            assertEquals(size, srq.query().maxWr());
            for (int i = old; i < old * 3; i++) {
                srq.postReceive(rr.reset().id(i).add(p.mrB, 64L * (i % 256), 64));
            }
            c.postSend(new SendWorkRequest(1).id(7).opcode(SendOpcode.SEND).signaled(true).add(p.mrA, 0, 32));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            WorkCompletions got = awaitCompletion(p.cqB);
            assertEquals(WcStatus.SUCCESS, got.status(0));
            assertEquals(0, got.id(0), "the receives posted before the resize stayed, in order");
            assertThrows(IllegalArgumentException.class, () -> srq.resize(0));
        }
    }

    @Test
    void anExtendedSharedReceiveQueueFeedsAQueuePairAndItsNumberIsGivenOrRefusedClearly(Context ctx)
            throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             SharedReceiveQueue srq = p.pd.sharedReceiveQueue(32, 1).completionQueue(p.cqB).create();
             QueuePair s = p.pd.queuePair(QpType.RC).completionQueue(p.cqB).sharedReceiveQueue(srq).create();
             QueuePair c = p.pd.queuePair(QpType.RC).completionQueue(p.cqA).create()) {
            assertTrue(srq.query().maxWr() >= 32);
            p.connect(s, c);
            srq.postReceive(new ReceiveWorkRequest(1).id(11).add(p.mrB, 0, 256));
            c.postSend(new SendWorkRequest(1).id(12).opcode(SendOpcode.SEND).signaled(true).add(p.mrA, 0, 100));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            WorkCompletions got = awaitCompletion(p.cqB);
            assertEquals(11, got.id(0));
            assertEquals(100, got.byteLength(0));
            try {
                assertTrue(srq.number() >= 0);
            } catch (RdmaUnsupportedException refused) {
                // Providers without XRC (Soft-RoCE) give no SRQ numbers.
                assertEquals(EOPNOTSUPP, refused.errno(), refused.getMessage());
                assertTrue(refused.getMessage().contains("ibv_get_srq_num"), refused.getMessage());
            }
        }
    }

    /** The path to {@code remote} with a GRH of hop limit 64, {@link #TRAFFIC_CLASS} and {@link #FLOW_LABEL}. */
    private static AddressVector path(Endpoint remote, int gidIndex) {
        AddressVector path = AddressVector.to(remote, 1, gidIndex);
        return gidIndex < 0 ? path : path.withGlobalRoute(
                path.globalRoute().withTrafficClass(TRAFFIC_CLASS).withFlowLabel(FLOW_LABEL));
    }

    /** RESET → INIT → RTR → RTS through {@link QueuePair#modify} alone. */
    private static void connectByHand(QueuePair qp, Endpoint remote, int sendPsn, int gidIndex) throws Exception {
        qp.modify(QpAttributes.builder().state(QpState.INIT).pkeyIndex(0).port(1)
                .remoteAccess(Access.LOCAL_WRITE, Access.REMOTE_WRITE).build());
        qp.modify(QpAttributes.builder().state(QpState.RTR).addressVector(path(remote, gidIndex))
                .pathMtu(Mtu.MTU_1024).destQpNumber(remote.qpn()).receivePsn(remote.psn()).maxDestReadAtomic(1)
                .minRnrTimer(12).build());
        qp.modify(QpAttributes.builder().state(QpState.RTS).sendPsn(sendPsn).timeout(14).retryCount(6).rnrRetry(7)
                .maxReadAtomic(1).build());
    }
}
