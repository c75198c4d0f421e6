package io.jrdma.nativetest.abi;

import io.jrdma.bindings.ibverbs.ibv_context;
import io.jrdma.bindings.ibverbs.ibv_device_attr;
import io.jrdma.bindings.ibverbs.ibv_gid;
import io.jrdma.bindings.ibverbs.ibv_port_attr;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.bindings.ibverbs.verbs_context;
import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device, port and GID table, read through the raw generated bindings alone: proves the bindings reach a
 * real device before any idiomatic layer is involved.
 */
@RdmaDeviceTest
@SuppressWarnings("restricted") // it reads the raw bindings' pointers, as jrdma's own layer does
class BindingsSmokeDeviceTest {

    @Test
    void openQueryAndCloseThroughTheGeneratedBindings(Device device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment list = ibverbs_h.ibv_get_device_list(count);
            assertNotEquals(MemorySegment.NULL, list, "ibv_get_device_list");
            MemorySegment ctx = MemorySegment.NULL;
            try {
                int n = count.get(ValueLayout.JAVA_INT, 0);
                MemorySegment entries = list.reinterpret(ValueLayout.ADDRESS.byteSize() * n);
                List<String> names = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    MemorySegment dev = entries.getAtIndex(ValueLayout.ADDRESS, i);
                    String name = ibverbs_h.ibv_get_device_name(dev).reinterpret(64).getString(0);
                    names.add(name);
                    if (name.equals(device.name())) {
                        ctx = ibverbs_h.ibv_open_device(dev);
                    }
                }
                assertTrue(names.contains(device.name()), "device list " + names + " has " + device.name());
            } finally {
                ibverbs_h.ibv_free_device_list(list);
            }
            assertNotEquals(MemorySegment.NULL, ctx, "ibv_open_device");
            ctx = ctx.reinterpret(ibv_context.sizeof());

            MemorySegment attr = ibv_device_attr.allocate(arena);
            assertEquals(0, ibverbs_h.ibv_query_device(ctx, attr), "ibv_query_device");
            int ports = Byte.toUnsignedInt(ibv_device_attr.phys_port_cnt(attr));
            assertTrue(ports >= 1, "phys_port_cnt " + ports);
            assertTrue(ibv_device_attr.max_qp(attr) > 0 && ibv_device_attr.max_cqe(attr) > 0, "max_qp and max_cqe");
            assertTrue(ibv_device_attr.fw_ver(attr).getString(0).length() < 64, "fw_ver is a C string");

            // verbs.h's ibv_query_port macro: the provider's query_port through the extended context.
            MemorySegment vctx = MemorySegment.ofAddress(ctx.address() - verbs_context.context$offset())
                    .reinterpret(verbs_context.sizeof());
            assertEquals(-1L, ibv_context.abi_compat(ctx).address(), "context is a verbs_context");
            MemorySegment queryPort = verbs_context.query_port(vctx);
            assertNotEquals(MemorySegment.NULL, queryPort, "provider has query_port");
            MemorySegment port = ibv_port_attr.allocate(arena);
            assertEquals(0, verbs_context.query_port.invoke(queryPort, ctx, (byte) 1, port, ibv_port_attr.sizeof()));
            assertEquals(ibverbs_h.IBV_PORT_ACTIVE(), ibv_port_attr.state(port), "port 1 state");
            int gids = ibv_port_attr.gid_tbl_len(port);
            assertTrue(gids > 0, "gid_tbl_len " + gids);

            int nonZero = 0;
            MemorySegment gid = ibv_gid.allocate(arena);
            for (int i = 0; i < gids; i++) {
                if (ibverbs_h.ibv_query_gid(ctx, (byte) 1, i, gid) == 0
                        && ibv_gid.global.interface_id(ibv_gid.global(gid)) != 0) {
                    nonZero++;
                }
            }
            assertTrue(nonZero > 0, "a populated GID in " + gids + " entries");
            assertEquals(0, ibverbs_h.ibv_close_device(ctx), "ibv_close_device");
        }
    }
}
