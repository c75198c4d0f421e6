package io.jrdma.examples;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.DeviceAttributes;
import io.jrdma.ibverbs.GidEntry;
import io.jrdma.ibverbs.PortAttributes;
import io.jrdma.ibverbs.RdmaException;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code jrdma devices [-v] [-d DEVICE]}: every device, its attributes and ports, like {@code ibv_devinfo}.
 *
 * <pre>{@code
 * new DevicesCommand(System.out).run(List.of("-v"));
 * }</pre>
 */
final class DevicesCommand {
    private final PrintStream out;

    DevicesCommand(PrintStream out) {
        this.out = out;
    }

    int run(List<String> args) throws RdmaException {
        boolean verbose = false;
        String only = null;
        for (int i = 0; i < args.size(); i++) {
            switch (args.get(i)) {
                case "-v", "--verbose" -> verbose = true;
                case "-d", "--ib-dev" -> {
                    if (i + 1 >= args.size()) {
                        throw new IllegalArgumentException("-d needs a device name");
                    }
                    only = args.get(++i);
                }
                default -> throw new IllegalArgumentException("devices: unknown option '" + args.get(i) + "'");
            }
        }
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
            out.printf("hca_id:\t%s%n", d.name());
            field(1, "transport", d.transportType() + " / node " + d.nodeType());
            field(1, "fw_ver", a.firmwareVersion());
            field(1, "node_guid", guid(a.nodeGuid()));
            field(1, "sys_image_guid", guid(a.sysImageGuid()));
            field(1, "vendor_id", String.format("0x%04x", a.vendorId()));
            field(1, "vendor_part_id", Integer.toString(a.vendorPartId()));
            field(1, "hw_ver", String.format("0x%x", a.hwVersion()));
            field(1, "phys_port_cnt", Integer.toString(a.physPortCount()));
            if (verbose) {
                field(1, "max_mr_size", String.format("0x%x", a.maxMrSize()));
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
                out.printf("\t\tport:\t%d%n", port);
                field(3, "state", "PORT_" + p.state());
                field(3, "max_mtu", p.maxMtu().bytes() + "");
                field(3, "active_mtu", p.activeMtu().bytes() + "");
                field(3, "sm_lid", Integer.toString(p.smLid()));
                field(3, "port_lid", Integer.toString(p.lid()));
                field(3, "port_lmc", String.format("0x%02x", p.lmc()));
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
                out.printf("\t\t\tGID[%3d]:\t\t%s, %s%n", i, format(e.gid()), e.type());
            } catch (RdmaException unpopulated) {
                // ibv_devinfo shows only populated entries
            }
        }
    }

    /** A GID as ibv_devinfo prints it: IPv4-mapped as ::ffff:a.b.c.d, else IPv6 with the longest zero run cut. */
    static String format(byte[] gid) {
        boolean mapped = gid[10] == (byte) 0xff && gid[11] == (byte) 0xff;
        for (int i = 0; i < 10 && mapped; i++) {
            mapped = gid[i] == 0;
        }
        if (mapped) {
            return String.format("::ffff:%d.%d.%d.%d", gid[12] & 0xff, gid[13] & 0xff, gid[14] & 0xff, gid[15] & 0xff);
        }
        int[] words = new int[8];
        for (int i = 0; i < 8; i++) {
            words[i] = ((gid[2 * i] & 0xff) << 8) | (gid[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && words[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                b.append("::");
                i += bestLength - 1;
                continue;
            }
            if (b.length() > 0 && b.charAt(b.length() - 1) != ':') {
                b.append(':');
            }
            b.append(Integer.toHexString(words[i]));
        }
        return b.toString();
    }

    private void field(int indent, String name, String value) {
        out.printf("%s%-20s%s%n", "\t".repeat(indent), name + ":", value);
    }

    private static String guid(long guid) {
        String hex = String.format("%016x", guid);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }
}
