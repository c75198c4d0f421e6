package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_qp_attr;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Typed queue pair attributes and paths: what reaches {@code struct ibv_qp_attr}, and what is refused first. */
class QpAttributesTest {
    private static final byte[] GID = {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};

    @Test
    void everyFieldSetReachesItsStructMemberAndComesBack() {
        AddressVector primary = new AddressVector(0x1234, 5, 3, 7, 1,
                new GlobalRoute(GID, 2, 64, 106, 0x12345));
        AddressVector alternate = new AddressVector(0x4321, 6, 1, 3, 1, GlobalRoute.to(GID, 1).withHopLimit(9));
        QpAttributes set = QpAttributes.builder().state(QpState.RTS).currentState(QpState.RTR).sqdAsyncNotify(true)
                .remoteAccess(Access.LOCAL_WRITE, Access.REMOTE_READ).pkeyIndex(3).port(1).qkey(0xcafe)
                .addressVector(primary).pathMtu(Mtu.MTU_2048).timeout(17).retryCount(5).rnrRetry(6)
                .receivePsn(0xabcdef).maxReadAtomic(8).alternatePath(new AlternatePath(alternate, 2, 1, 19))
                .minRnrTimer(13).sendPsn(0x123456).maxDestReadAtomic(9).migrationState(MigrationState.REARM)
                .destQpNumber(0x654321).build();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(arena);
            int mask = set.write(attr);
            assertEquals(QpAttribute.maskOf(EnumSet.allOf(QpAttribute.class)), mask);
            QpAttributes back = QpAttributes.read(attr);
            assertEquals(QpState.RTS, back.state());
            assertEquals(QpState.RTR, back.currentState());
            assertTrue(back.sqdAsyncNotify());
            assertEquals(Access.LOCAL_WRITE.mask() | Access.REMOTE_READ.mask(), back.accessFlags());
            assertEquals(3, back.pkeyIndex());
            assertEquals(1, back.port());
            assertEquals(0xcafe, back.qkey());
            assertEquals(primary, back.addressVector());
            assertArrayEquals(GID, back.addressVector().globalRoute().dgid());
            assertEquals(Mtu.MTU_2048, back.pathMtu());
            assertEquals(17, back.timeout());
            assertEquals(5, back.retryCount());
            assertEquals(6, back.rnrRetry());
            assertEquals(0xabcdef, back.receivePsn());
            assertEquals(8, back.maxReadAtomic());
            assertEquals(new AlternatePath(alternate, 2, 1, 19), back.alternatePath());
            assertEquals(13, back.minRnrTimer());
            assertEquals(0x123456, back.sendPsn());
            assertEquals(9, back.maxDestReadAtomic());
            assertEquals(MigrationState.REARM, back.migrationState());
            assertEquals(0x654321, back.destQpNumber());
        }
    }

    @Test
    void onlyTheAttributesSetAreInTheMask() {
        QpAttributes a = QpAttributes.builder().state(QpState.SQD).sqdAsyncNotify(true).build();
        assertEquals(Set.of(QpAttribute.STATE, QpAttribute.EN_SQD_ASYNC_NOTIFY), a.attributes());
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(QpAttribute.STATE.mask() | QpAttribute.EN_SQD_ASYNC_NOTIFY.mask(),
                    a.write(ibv_qp_attr.allocate(arena)));
        }
        IllegalStateException unset = assertThrows(IllegalStateException.class, a::timeout);
        assertTrue(unset.getMessage().contains("TIMEOUT is not set"), unset.getMessage());
        assertThrows(IllegalStateException.class, a::capabilities, "only a query reports them");
    }

    @Test
    void attributesFilledElsewhereKeepOnlyTheMaskedOnesAndWriteBackTheSameMask() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(arena);
            ibv_qp_attr.qp_state(attr, QpState.RTS.value());
            ibv_qp_attr.timeout(attr, (byte) 17);
            ibv_qp_attr.sq_psn(attr, 0x123456);
            ibv_qp_attr.dest_qp_num(attr, 0x42);
            int mask = QpAttribute.STATE.mask() | QpAttribute.TIMEOUT.mask() | QpAttribute.SQ_PSN.mask();
            // A bit no QpAttribute stands for cannot be passed on by a modify, so it is left out.
            QpAttributes given = QpAttributes.read(attr, mask | ibverbs_h.IBV_QP_RATE_LIMIT());
            assertEquals(EnumSet.of(QpAttribute.STATE, QpAttribute.TIMEOUT, QpAttribute.SQ_PSN), given.attributes());
            assertEquals(QpState.RTS, given.state());
            assertEquals(17, given.timeout());
            assertEquals(0x123456, given.sendPsn());
            assertThrows(IllegalStateException.class, given::destQpNumber, "not in the mask, not given");
            assertThrows(IllegalStateException.class, given::capabilities, "only a query reports them");
            assertEquals(mask, given.write(ibv_qp_attr.allocate(arena)));
        }
    }

    @Test
    void anEceVendorIsTwentyFourBits() {
        assertEquals(0x15b3, new Ece(0x15b3, -1).vendorId());
        assertThrows(IllegalArgumentException.class, () -> new Ece(0x1000000, 0));
        assertThrows(IllegalArgumentException.class, () -> new Ece(-1, 0));
    }

    @Test
    void outOfRangeValuesAreRefusedWhenSet() {
        QpAttributes.Builder b = QpAttributes.builder();
        assertThrows(IllegalArgumentException.class, () -> b.timeout(32));
        assertThrows(IllegalArgumentException.class, () -> b.retryCount(8));
        assertThrows(IllegalArgumentException.class, () -> b.rnrRetry(-1));
        assertThrows(IllegalArgumentException.class, () -> b.minRnrTimer(32));
        assertThrows(IllegalArgumentException.class, () -> b.sendPsn(1 << 24));
        assertThrows(IllegalArgumentException.class, () -> b.destQpNumber(-1));
        assertThrows(IllegalArgumentException.class, () -> b.port(0));
        assertThrows(IllegalArgumentException.class, () -> b.state(QpState.UNKNOWN));
        assertThrows(IllegalArgumentException.class, () -> b.addressVector(new AddressVector(1, 0, 0, 0, 0, null)),
                "a path without its port");
        assertThrows(IllegalStateException.class, b::build, "nothing set");
        assertThrows(IllegalArgumentException.class, () -> new GlobalRoute(GID, 0, 256, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> GlobalRoute.to(GID, 0).withFlowLabel(1 << 20));
        assertThrows(IllegalArgumentException.class, () -> GlobalRoute.to(GID, 0).withTrafficClass(256));
        assertThrows(IllegalArgumentException.class, () -> GlobalRoute.to(new byte[4], 0));
        assertThrows(IllegalArgumentException.class, () -> new AddressVector(0, 16, 0, 0, 1, null));
        assertThrows(IllegalArgumentException.class, () -> new AlternatePath(
                new AddressVector(0, 0, 0, 0, 1, null), 0, 1, 32));
        assertThrows(IllegalArgumentException.class, () -> ConnectOptions.of(1, 0, Mtu.MTU_1024).hopLimit(256));
    }

    @Test
    void connectPathsCrossRoutersByDefault() {
        Endpoint peer = new Endpoint(0, 0x11, 0x22, GID);
        GlobalRoute grh = ConnectOptions.of(1, 3, Mtu.MTU_1024).path(peer).globalRoute();
        assertEquals(GlobalRoute.DEFAULT_HOP_LIMIT, grh.hopLimit());
        assertEquals(64, AddressVector.to(peer, 1, 3).globalRoute().hopLimit());
        AddressVector tuned = ConnectOptions.of(1, 3, Mtu.MTU_1024).hopLimit(8).trafficClass(106).flowLabel(0xabcde)
                .serviceLevel(2).path(peer);
        assertEquals(new AddressVector(0, 2, 0, 0, 1, new GlobalRoute(GID, 3, 8, 106, 0xabcde)), tuned);
        assertNull(AddressVector.to(new Endpoint(7, 1, 1, new byte[16]), 1, -1).globalRoute());
        assertThrows(IllegalArgumentException.class, () -> AddressVector.to(peer, 1, -1), "RoCE needs a GRH");
    }
}
