package io.jrdma.examples;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.DeviceAttributes;
import io.jrdma.ibverbs.GidEntry;
import io.jrdma.ibverbs.PortAttributes;
import io.jrdma.ibverbs.RdmaException;

import java.util.List;

/**
 * Lists the RDMA devices, their ports and the GIDs of each port.
 *
 * <pre>{@code
 * rxe0 (transport IB, node CA): 1 port(s), max 1048560 queue pairs
 *   port 1: ACTIVE, ETHERNET, active MTU 1024
 *     GID 0 ROCE_V2 fe80:0:0:0:5054:ff:fe12:3456
 *     GID 1 ROCE_V2 0:0:0:0:0:ffff:a00:20f
 * }</pre>
 */
public final class DeviceList {
    private DeviceList() {
    }

    public static void main(String[] args) throws RdmaException {
        List<Device> devices = Device.list();
        if (devices.isEmpty()) {
            throw new IllegalStateException("no RDMA device: load rdma_rxe, or see the README's requirements");
        }
        for (Device device : devices) {
            try (Context ctx = Context.open(device.name())) {
                DeviceAttributes attributes = ctx.queryDevice();
                System.out.printf("%s (transport %s, node %s): %d port(s), max %d queue pairs%n", device.name(),
                        device.transportType(), device.nodeType(), attributes.physPortCount(), attributes.maxQp());
                for (int port = 1; port <= attributes.physPortCount(); port++) {
                    PortAttributes p = ctx.queryPort(port);
                    System.out.printf("  port %d: %s, %s, active MTU %d%n", port, p.state(), p.linkLayer(),
                            p.activeMtu().bytes());
                    for (int i = 0; i < p.gidTableLength(); i++) {
                        printGid(ctx, port, i);
                    }
                }
            }
        }
    }

    private static void printGid(Context ctx, int port, int index) {
        try {
            GidEntry gid = ctx.queryGid(port, index);
            System.out.printf("    GID %d %s %s%n", index, gid.type(), gid.address().getHostAddress());
        } catch (RdmaException unpopulated) {
            // an empty slot of the table: nothing to show
        }
    }
}
