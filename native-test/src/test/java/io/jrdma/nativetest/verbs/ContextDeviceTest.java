package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.DeviceAttributes;
import io.jrdma.ibverbs.GidEntry;
import io.jrdma.ibverbs.GidType;
import io.jrdma.ibverbs.LinkLayer;
import io.jrdma.ibverbs.PortAttributes;
import io.jrdma.ibverbs.PortState;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.TransportType;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.net.NetworkInterface;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Device listing, open, queries and close of {@link Context} on a real device. */
@RdmaDeviceTest
class ContextDeviceTest {

    @Test
    void listsTheDeviceWithItsGuidAndTransport(Device device) throws Exception {
        assertTrue(Device.list().contains(device));
        assertEquals(TransportType.IB, device.transportType(), "verbs devices (IB, RoCE, rxe) use the IB transport");
        try (Context ctx = Context.open(device.name())) {
            assertEquals(device.guid(), ctx.queryDevice().nodeGuid(), "list GUID = node GUID of the device");
        }
    }

    @Test
    void queriesDeviceAndPort(Context ctx) throws Exception {
        DeviceAttributes d = ctx.queryDevice();
        assertTrue(d.physPortCount() >= 1 && d.maxQp() > 0 && d.maxSge() > 0 && d.maxMrSize() != 0, d.toString());
        PortAttributes p = ctx.queryPort(1);
        assertEquals(PortState.ACTIVE, p.state());
        assertTrue(p.activeMtu().bytes() <= p.maxMtu().bytes(), p.toString());
        assertTrue(p.gidTableLength() > 0 && p.maxMsgSize() > 0, p.toString());
        if (p.linkLayer() == LinkLayer.ETHERNET) {
            assertEquals(0, p.lid(), "RoCE ports have no LID");
        }
    }

    @Test
    void readsTheGidTableWithTypesAndNetdev(Context ctx) throws Exception {
        PortAttributes p = ctx.queryPort(1);
        List<GidEntry> populated = new ArrayList<>();
        for (int i = 0; i < p.gidTableLength(); i++) {
            try {
                GidEntry e = ctx.queryGid(1, i);
                assertEquals(i, e.index());
                assertEquals(1, e.port());
                populated.add(e);
            } catch (RdmaException e) {
                // Unpopulated entries report ENODATA/EINVAL; the table is sparse.
                assertTrue(List.of("ENODATA", "EINVAL").contains(e.errnoName()), e.getMessage());
            }
        }
        assertFalse(populated.isEmpty(), "no GID populated");
        if (p.linkLayer() == LinkLayer.ETHERNET) {
            GidEntry v2 = populated.stream().filter(e -> e.type() == GidType.ROCE_V2).findFirst().orElseThrow();
            NetworkInterface netdev = NetworkInterface.getByIndex(v2.netdevIndex());
            assertTrue(netdev != null, "RoCE v2 GID " + v2 + " names an existing netdev");
        }
    }

    @Test
    void refusesBadInputBeforeAnyNativeCall(Context ctx) {
        assertThrows(IllegalArgumentException.class, () -> ctx.queryPort(0));
        assertThrows(IllegalArgumentException.class, () -> ctx.queryPort(256));
        assertThrows(IllegalArgumentException.class, () -> ctx.queryGid(1, -1));
        assertThrows(IllegalArgumentException.class, () -> Context.open(""));
    }

    @Test
    void reportsAMissingPortAndDeviceByErrno(Context ctx) throws Exception {
        int beyond = ctx.queryDevice().physPortCount() + 1;
        RdmaException e = assertThrows(RdmaException.class, () -> ctx.queryPort(beyond));
        assertEquals("ibv_query_port", e.verb());
        assertEquals("EINVAL", e.errnoName());
        RdmaException missing = assertThrows(RdmaException.class, () -> Context.open("nosuchdev9"));
        assertEquals("ENODEV", missing.errnoName());
        assertTrue(missing.getMessage().contains(ctx.device().name()), missing.getMessage());
    }

    @Test
    void closeIsIdempotentAndUseAfterCloseIsRefused(Device device) throws Exception {
        Context ctx = Context.open(device.name());
        ctx.close();
        ctx.close();
        assertTrue(ctx.isClosed());
        IllegalStateException e = assertThrows(IllegalStateException.class, ctx::queryDevice);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> ctx.queryPort(1));
    }
}
