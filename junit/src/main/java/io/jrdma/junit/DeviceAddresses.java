package io.jrdma.junit;

import io.jrdma.ibverbs.Device;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The IP side of a RoCE or iWARP device, for tests that connect through the connection manager: the network
 * interface behind a device's port 1, as sysfs names it in the port's GID attributes, and its IPv4 address.
 *
 * {@snippet class=io.jrdma.junit.snippets.RdmaDeviceTestSnippets region=address}
 */
public final class DeviceAddresses {
    /** The system property that overrides the address {@link #ipv4(Device)} finds. */
    public static final String ADDRESS_PROPERTY = "jrdma.test.address";

    private DeviceAddresses() {
    }

    /**
     * The {@value #ADDRESS_PROPERTY} system property if set, else the first IPv4 address of {@link #netdev}.
     *
     * @param device the device
     * @return its address
     * @throws IOException if it has no network interface or the interface has no IPv4 address
     */
    public static InetAddress ipv4(Device device) throws IOException {
        String configured = System.getProperty(ADDRESS_PROPERTY);
        if (configured != null) {
            return InetAddress.getByName(configured);
        }
        for (InetAddress address : netdev(device).inetAddresses().toList()) {
            if (address instanceof Inet4Address) {
                return address;
            }
        }
        throw new IOException(device.name() + " has no IPv4 interface: set -D" + ADDRESS_PROPERTY);
    }

    /**
     * The network interface behind {@code device}'s port 1.
     *
     * @param device the device
     * @return the interface
     * @throws IOException if sysfs names none (an InfiniBand port without IPoIB, for example)
     */
    public static NetworkInterface netdev(Device device) throws IOException {
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
                    return nif;
                }
            }
        }
        throw new IOException(device.name() + " has no network interface: set -D" + ADDRESS_PROPERTY);
    }
}
