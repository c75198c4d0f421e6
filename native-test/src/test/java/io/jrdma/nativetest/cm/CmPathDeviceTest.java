package io.jrdma.nativetest.cm;

import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PathRecord;
import io.jrdma.rdmacm.PortSpace;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Routes as path records: what the connection manager resolves ({@code CmId.paths()}), and a route given to an id
 * instead of resolved ({@code RDMA_OPTION_IB_PATH}), whose fields the connected queue pair then carries.
 */
@RdmaDeviceTest
class CmPathDeviceTest {
    private static final Duration T = Duration.ofSeconds(20);
    private static final int TRAFFIC_CLASS = 0x48;

    @Test
    void aPathGivenInsteadOfResolvedConnectsAndItsTrafficClassReachesTheQueuePair(Context ctx) throws Exception {
        InetSocketAddress server = new InetSocketAddress(DeviceSupport.ipAddress(ctx), 18741);
        try (RdmaListener listener = RdmaListener.bind(server, ConnectionOptions.defaults());
             EventChannel events = EventChannel.create()) {
            PathRecord resolved;
            try (CmId first = CmId.create(events, PortSpace.TCP)) {
                assertTrue(first.paths().isEmpty(), "no route before it is resolved");
                first.resolve(server, T);
                List<PathRecord> paths = first.paths();
                assertEquals(1, paths.size(), paths.toString());
                resolved = paths.getFirst();
            }
            byte[] gid = ctx.queryGid(1, DeviceSupport.gidIndex(ctx)).gid();
            assertArrayEquals(gid, resolved.sgid(), "from this device's IPv4 RoCE v2 GID: " + resolved);
            assertArrayEquals(gid, resolved.dgid(), "to the same GID, the listener being here: " + resolved);
            assertEquals(ctx.queryPort(1).activeMtu(), resolved.mtu(), resolved.toString());

            PathRecord given = new PathRecord(resolved.dgid(), resolved.sgid(), resolved.dlid(), resolved.slid(),
                    resolved.flowLabel(), resolved.hopLimit(), TRAFFIC_CLASS, resolved.serviceLevel(), resolved.pkey(),
                    resolved.mtu(), resolved.rate(), resolved.packetLifeTime());
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return listener.accept(T);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (CmId next = CmId.create(events, PortSpace.TCP)) {
                next.resolveAddress(null, server, T);
                next.await(T, CmEventType.ADDR_RESOLVED);
                next.setPath(given);
                next.await(T, CmEventType.ROUTE_RESOLVED);
                assertEquals(TRAFFIC_CLASS, next.paths().getFirst().trafficClass(), next.paths().toString());
                try (ProtectionDomain pd = next.context().allocateProtectionDomain();
                     CompletionQueue cq = next.context().createCompletionQueue(8)) {
                    next.createQueuePair(pd.queuePair(QpType.RC).completionQueue(cq).capacity(4, 4));
                    next.connect(ConnectionParameters.defaults());
                    next.await(T, CmEventType.ESTABLISHED);
                    try (RdmaConnection peer = accepted.get(T.toSeconds(), TimeUnit.SECONDS)) {
                        assertEquals(TRAFFIC_CLASS, next.queuePair().query().addressVector().globalRoute()
                                .trafficClass(), "the connected queue pair took the given path's traffic class");
                    }
                    next.queuePair().close();
                }
            }
        }
    }

    @Test
    void aPathBeforeTheAddressIsResolvedIsRefused(Context ctx) throws Exception {
        byte[] gid = ctx.queryGid(1, DeviceSupport.gidIndex(ctx)).gid();
        PathRecord path = new PathRecord(gid, gid, 0, 0, 0, 64, 0, 0, 0xffff, ctx.queryPort(1).activeMtu(), 3, 16);
        try (EventChannel events = EventChannel.create(); CmId id = CmId.create(events, PortSpace.TCP)) {
            RdmaException e = assertThrows(RdmaException.class, () -> id.setPath(path));
            assertEquals("EINVAL", e.errnoName(), e.getMessage());
        }
    }
}
