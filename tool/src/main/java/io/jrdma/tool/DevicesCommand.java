package io.jrdma.tool;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.DeviceAttributes;
import io.jrdma.ibverbs.GidEntry;
import io.jrdma.ibverbs.PortAttributes;
import io.jrdma.ibverbs.RdmaException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * {@code jrdma devices [-v] [-d DEVICE]}: every device, its attributes and ports, like {@code ibv_devinfo}.
 *
 * {@snippet lang=shell :
 * $ jrdma devices -v
 * }
 */
@Command(name = "devices", sortOptions = false,
        description = "List RDMA devices and their ports, like ibv_devinfo; -v adds the GID table.")
final class DevicesCommand extends ToolCommand {
    @Option(names = {"-v", "--verbose"}, description = "print all the attributes and the GID table")
    private boolean verbose;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "<dev>", description = "only this device")
    private String only;

    DevicesCommand(PrintStream out, PrintStream err) {
        super(out, err);
    }

    @Override
    public Integer call() throws RdmaException {
        List<Device> devices = Device.list();
        if (devices.isEmpty()) {
            out.println("No IB devices found");
            return 1;
        }
        int shown = 0;
        for (Device d : devices) {
            if (only == null || only.equals(d.name())) {
                print(d, verbose);
                shown++;
            }
        }
        if (shown == 0) {
            throw new IllegalArgumentException("no device named '" + only + "' (devices: "
                    + devices.stream().map(Device::name).toList() + ")");
        }
        return 0;
    }

    private void print(Device d, boolean verbose) throws RdmaException {
        try (Context ctx = Context.open(d.name())) {
            DeviceAttributes a = ctx.queryDevice();
            out.printf(Locale.ROOT, "hca_id:\t%s%n", d.name());
            field(1, "transport", d.transportType() + " / node " + d.nodeType());
            field(1, "fw_ver", a.firmwareVersion());
            field(1, "node_guid", guid(a.nodeGuid()));
            field(1, "sys_image_guid", guid(a.sysImageGuid()));
            field(1, "vendor_id", String.format(Locale.ROOT, "0x%04x", a.vendorId()));
            field(1, "vendor_part_id", Integer.toString(a.vendorPartId()));
            field(1, "hw_ver", String.format(Locale.ROOT, "0x%x", a.hwVersion()));
            field(1, "phys_port_cnt", Integer.toString(a.physPortCount()));
            if (verbose) {
                field(1, "max_mr_size", String.format(Locale.ROOT, "0x%x", a.maxMrSize()));
                field(1, "max_qp", Integer.toString(a.maxQp()));
                field(1, "max_qp_wr", Integer.toString(a.maxQpWr()));
                field(1, "max_sge", Integer.toString(a.maxSge()));
                field(1, "max_cqe", Integer.toString(a.maxCqe()));
                field(1, "max_mr", Integer.toString(a.maxMr()));
                field(1, "max_mw", Integer.toString(a.maxMw()));
                field(1, "max_srq", Integer.toString(a.maxSrq()));
            }
            for (int port = 1; port <= a.physPortCount(); port++) {
                PortAttributes p = ctx.queryPort(port);
                out.printf(Locale.ROOT, "\t\tport:\t%d%n", port);
                field(3, "state", "PORT_" + p.state());
                field(3, "max_mtu", p.maxMtu().bytes() + "");
                field(3, "active_mtu", p.activeMtu().bytes() + "");
                field(3, "sm_lid", Integer.toString(p.smLid()));
                field(3, "port_lid", Integer.toString(p.lid()));
                field(3, "port_lmc", String.format(Locale.ROOT, "0x%02x", p.lmc()));
                field(3, "link_layer", p.linkLayer().toString());
                if (verbose) {
                    field(3, "gid_tbl_len", Integer.toString(p.gidTableLength()));
                    printGids(ctx, port, p.gidTableLength());
                }
            }
            out.println();
        }
    }

    private void printGids(Context ctx, int port, int length) {
        for (int i = 0; i < length; i++) {
            try {
                GidEntry e = ctx.queryGid(port, i);
                out.printf(Locale.ROOT, "\t\t\tGID[%3d]:\t\t%s, %s%n", i, GidFormat.format(e.gid()), e.type());
            } catch (RdmaException unpopulated) {
                // ibv_devinfo shows only populated entries
            }
        }
    }

    private void field(int indent, String name, String value) {
        out.printf(Locale.ROOT, "%s%-20s%s%n", "\t".repeat(indent), name + ":", value);
    }

    private static String guid(long guid) {
        String hex = String.format(Locale.ROOT, "%016x", guid);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }
}
