package io.jrdma.nio;

import io.jrdma.ibverbs.Device;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The IPv4 address of an RDMA device's network interface, which the device tests bind and connect to. */
final class DeviceAddress {
    private DeviceAddress() {
    }

    /**
     * The {@code jrdma.test.address} system property if set, else the first IPv4 address of the network interface
     * behind {@code device}'s port 1 (as sysfs names it in the port's GID attributes).
     */
    static String of(Device device) throws IOException {
        String configured = System.getProperty("jrdma.test.address");
        if (configured != null) {
            return configured;
        }
        Path ndevs = Path.of("/sys/class/infiniband", device.name(), "ports/1/gid_attrs/ndevs");
        try (Stream<Path> entries = Files.list(ndevs)) {
            for (Path entry : entries.toList()) {
                String name;
                try {
                    name = Files.readString(entry).strip();
                } catch (IOException unpopulated) {
                    continue;   // a GID slot without a network device reads as an error
                }
                NetworkInterface nif = NetworkInterface.getByName(name);
                if (nif != null) {
                    for (InetAddress address : nif.inetAddresses().toList()) {
                        if (address instanceof Inet4Address) {
                            return address.getHostAddress();
                        }
                    }
                }
            }
        }
        throw new IOException(device.name() + " has no IPv4 interface: set -Djrdma.test.address");
    }
}
