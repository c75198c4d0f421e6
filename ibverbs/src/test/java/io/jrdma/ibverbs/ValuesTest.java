package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.Errno;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The value types and errors of the verbs API, without a device. */
class ValuesTest {

    @Test
    void rdmaExceptionCarriesVerbErrnoAndItsName() {
        RdmaException e = Errno.exception("ibv_query_port", 22);
        assertEquals("ibv_query_port", e.verb());
        assertEquals(22, e.errno());
        assertEquals("EINVAL", e.errnoName());
        assertEquals("ibv_query_port failed: EINVAL (errno 22): Invalid argument", e.getMessage());
        assertEquals("ENOSYS", Errno.name(38));
        assertEquals("ENODEV", Errno.name(Errno.ENODEV));
    }

    @Test
    void mtuMapsBytesAndCValues() {
        assertEquals(Mtu.MTU_1024, Mtu.ofBytes(1024));
        assertEquals(4096, Mtu.of(5).bytes(), "IBV_MTU_4096 is 5");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Mtu.ofBytes(1500));
        assertTrue(e.getMessage().contains("1500"), e.getMessage());
    }

    @Test
    void unknownCValuesFallBackToTheUnknownConstant() {
        assertEquals(PortState.ACTIVE, PortState.of(4));
        assertEquals(NodeType.UNKNOWN, NodeType.of(12345));
        assertEquals(GidType.ROCE_V2, GidType.of(2));
    }

    @Test
    void gidEntryIsImmutableAndChecksItsLength() {
        byte[] raw = new byte[16];
        raw[10] = (byte) 0xff;
        raw[11] = (byte) 0xff;
        raw[12] = 10;
        raw[15] = 15;
        GidEntry e = new GidEntry(raw, 1, 1, GidType.ROCE_V2, 2);
        raw[15] = 99;
        assertEquals(15, e.gid()[15], "constructor copied");
        e.gid()[15] = 77;
        assertEquals(15, e.gid()[15], "accessor copies");
        assertEquals("0:0:0:0:0:ffff:a00:f", e.address().getHostAddress());
        assertArrayEquals(e.gid(), new GidEntry(e.gid(), 1, 1, GidType.ROCE_V2, 2).gid());
        assertEquals(e, new GidEntry(e.gid(), 1, 1, GidType.ROCE_V2, 2));
        assertThrows(IllegalArgumentException.class, () -> new GidEntry(new byte[4], 0, 1, GidType.IB, 0));
    }
}
