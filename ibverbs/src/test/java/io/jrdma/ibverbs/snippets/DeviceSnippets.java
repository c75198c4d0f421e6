package io.jrdma.ibverbs.snippets;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.AsyncEvent;
import io.jrdma.ibverbs.AsyncEventType;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.DeviceAttributes;
import io.jrdma.ibverbs.GidEntry;
import io.jrdma.ibverbs.GidType;
import io.jrdma.ibverbs.LinkLayer;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.NodeType;
import io.jrdma.ibverbs.PortAttributes;
import io.jrdma.ibverbs.PortState;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.RdmaUnsupportedException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.TransportType;

import java.time.Duration;

/** Devices, contexts, their queries and events. */
final class DeviceSnippets {
    private static final System.Logger LOG = System.getLogger("snippets");

    void list() throws RdmaException {
        // @start region="list"
        for (Device d : Device.list()) {
            System.out.printf("%s %016x %s%n", d.name(), d.guid(), d.transportType());
        }
        // @end
    }

    void open() throws RdmaException {
        // @start region="open"
        try (Context ctx = Context.open("rxe0")) {
            PortAttributes port = ctx.queryPort(1);
            System.out.println(ctx.device().name() + " port 1 is " + port.state());
        }
        // @end
    }

    void lifetime() throws RdmaException {
        // @start region="lifetime"
        try (Context ctx = Context.open("rxe0");
             ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cq = ctx.createCompletionQueue(256);
             MemoryRegion mr = pd.allocate(1 << 20, Access.LOCAL_WRITE);
             QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq).create()) {
            connect(qp);   // exchange endpoints with the peer, then qp.connect(...)
            qp.postReceive(new ReceiveWorkRequest(1).add(mr, 0, 4096));
            // ... post sends, poll cq ...
        }   // closed in reverse: qp, mr, cq, pd, ctx
        // @end
    }

    void openFailure() {
        // @start region="open-failure"
        try (Context ctx = Context.open("mlx5_0")) {
            use(ctx);
        } catch (RdmaException e) {
            // e.g. "ibv_open_device failed: ENODEV (errno 19): no RDMA device named 'mlx5_0' (devices: [rxe0])"
            LOG.log(System.Logger.Level.WARNING, e.verb() + " failed: " + e.errnoName());
        }
        // @end
    }

    void unsupported(CompletionQueue cq) throws RdmaException {
        // @start region="unsupported"
        try {
            cq.moderate(16, 50);   // fewer interrupts, where the device can moderate
        } catch (RdmaUnsupportedException e) {
            // Soft-RoCE cannot: go on without moderation; any other failure still propagates.
        }
        // @end
    }

    void deviceTypes(Device device) {
        // @start region="node-type"
        boolean adapter = device.nodeType() == NodeType.CA;
        // @end
        // @start region="transport-type"
        boolean iwarp = device.transportType() == TransportType.IWARP;
        // @end
    }

    void deviceAttributes(Context ctx, int wanted) throws RdmaException {
        // @start region="device-attributes"
        DeviceAttributes a = ctx.queryDevice();
        int sges = Math.min(wanted, a.maxSge());
        // @end
    }

    void port(Context ctx) throws RdmaException {
        // @start region="port-attributes"
        PortAttributes p = ctx.queryPort(1);
        boolean roceReady = p.state() == PortState.ACTIVE && p.linkLayer() == LinkLayer.ETHERNET;
        // @end
        // @start region="port-state"
        if (ctx.queryPort(1).state() != PortState.ACTIVE) {
            throw new IllegalStateException("link down");
        }
        // @end
        // @start region="link-layer"
        boolean roce = ctx.queryPort(1).linkLayer() == LinkLayer.ETHERNET;
        // @end
        // @start region="mtu"
        int bytes = ctx.queryPort(1).activeMtu().bytes();   // e.g. 1024 on Soft-RoCE
        // @end
    }

    void gid(Context ctx) throws RdmaException {
        // @start region="gid-entry"
        GidEntry e = ctx.queryGid(1, 1);
        System.out.println(e.type() + " " + e.address().getHostAddress() + " ifindex " + e.netdevIndex());
        // @end
        // @start region="gid-type"
        boolean routable = ctx.queryGid(1, 1).type() == GidType.ROCE_V2;
        // @end
    }

    void asyncEvents(Context ctx) throws RdmaException, InterruptedException {
        // @start region="async-listener"
        ctx.onAsyncEvent(e -> {
            if (e.type() == AsyncEventType.PORT_ERR) {
                failover(e.port());
            }
        });
        // @end
    }

    void awaitAsyncEvent(Context ctx) throws RdmaException, InterruptedException {
        // @start region="async-await"
        AsyncEvent e = ctx.awaitAsyncEvent(Duration.ofSeconds(1));   // null on timeout
        if (e != null && e.type() == AsyncEventType.QP_FATAL) {
            recover(e.queuePair());
        }
        // @end
    }

    private static void use(Context ctx) {
    }

    private static void connect(QueuePair qp) {
    }

    private static void failover(int port) {
    }

    private static void recover(QueuePair qp) {
    }
}
