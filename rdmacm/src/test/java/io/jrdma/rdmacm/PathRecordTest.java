package io.jrdma.rdmacm;

import io.jrdma.bindings.rdmacm.ibv_path_data;
import io.jrdma.bindings.rdmacm.ibv_path_record;
import io.jrdma.ibverbs.Mtu;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PathRecordTest {
    private static final byte[] D = gid(1);
    private static final byte[] S = gid(2);

    private static byte[] gid(int last) {
        byte[] g = new byte[16];
        g[10] = (byte) 0xff;
        g[11] = (byte) 0xff;
        g[15] = (byte) last;
        return g;
    }

    @Test
    void aPathIsWrittenInTheWireFormatOfAPathRecordBigEndianEverySelectorExactly() {
        PathRecord p = new PathRecord(D, S, 0x1234, 0x5678, 0xabcde, 64, 0x60, 5, 0xffff, Mtu.MTU_1024, 3, 18);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = ibv_path_data.allocate(arena);
            p.writeTo(data);
            assertEquals(0x2b, ibv_path_data.flags(data), "GMP, primary, bidirectional (outbound + inbound reverse)");
            MemorySegment r = ibv_path_data.path(data);
            assertArrayEquals(D, ibv_path_record.dgid(r).toArray(ValueLayout.JAVA_BYTE));
            assertArrayEquals(S, ibv_path_record.sgid(r).toArray(ValueLayout.JAVA_BYTE));
            byte[] raw = r.toArray(ValueLayout.JAVA_BYTE);
            // service_id (8), dgid (16), sgid (16): then dlid at 40, slid at 42, flow label and hop limit at 44.
            assertEquals(0x12, raw[40]);
            assertEquals(0x34, raw[41]);
            assertEquals(0x56, raw[42]);
            assertEquals(0x78, raw[43]);
            assertArrayEquals(new byte[] {0x0a, (byte) 0xbc, (byte) 0xde, 64}, Arrays.copyOfRange(raw, 44, 48));
            assertEquals(0x60, raw[48], "traffic class");
            assertEquals((byte) 0x81, raw[49], "reversible, one path");
            assertEquals(0x05, raw[53], "service level, low bits of qosclass_sl");
            assertEquals((byte) (0x80 | Mtu.MTU_1024.value()), raw[54]);
            assertEquals((byte) 0x83, raw[55]);
            assertEquals((byte) (0x80 | 18), raw[56]);
        }
    }

    @Test
    void fieldsOutOfRangeAreRefusedNamingTheField() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new PathRecord(new byte[4], S, 0, 0, 0, 64, 0,
                0, 0xffff, Mtu.MTU_1024, 3, 18)).getMessage().contains("dgid"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new PathRecord(D, S, 0, 0, 1 << 20, 64, 0, 0,
                0xffff, Mtu.MTU_1024, 3, 18)).getMessage().contains("flowLabel"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new PathRecord(D, S, 0, 0, 0, 256, 0, 0,
                0xffff, Mtu.MTU_1024, 3, 18)).getMessage().contains("hopLimit"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new PathRecord(D, S, 0, 0, 0, 64, 0, 16,
                0xffff, Mtu.MTU_1024, 3, 18)).getMessage().contains("serviceLevel"));
        assertThrows(NullPointerException.class, () -> new PathRecord(D, S, 0, 0, 0, 64, 0, 0, 0xffff, null, 3, 18));
    }

    @Test
    void theGidsAreCopiedInAndOut() {
        byte[] d = D.clone();
        PathRecord p = new PathRecord(d, S, 0, 0, 0, 64, 0, 0, 0xffff, Mtu.MTU_1024, 3, 18);
        d[0] = 9;
        p.dgid()[1] = 9;
        assertArrayEquals(D, p.dgid());
    }
}
