package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.DeviceAddresses;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What the device tests share: the device's IPv4 address, and a provider and server channel over RDMA on it. */
final class DeviceSupport {
    private DeviceSupport() {
    }

    /** Runs {@code test} with an RDMA provider and a server channel of it listening on the device's address. */
    static void withRdmaServer(Device device, ChannelContract.Check test) throws Exception {
        String ip = address(device);
        withRdmaServer(rdmaProvider(ip), ip, test);
    }

    private static void withRdmaServer(RdmaSelectorProvider provider, String ip, ChannelContract.Check test)
            throws Exception {
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(new InetSocketAddress(ip, 0))) {
            test.run(provider, server);
        }
    }

    /** A check against two connected RDMA channels: a client and the channel its server accepted. */
    interface PairCheck {
        void run(RdmaSelectorProvider provider, SocketChannel client, SocketChannel peer) throws Exception;
    }

    /**
     * Runs {@code test} with an RDMA provider whose rsockets have buffers of {@code bufferSize} (librdmacm's for 0)
     * and a connection of it on the device's address.
     */
    static void withRdmaPair(Device device, int bufferSize, PairCheck test) throws Exception {
        String ip = address(device);
        RdmaSelectorProvider provider = rdmaProvider(ip, bufferSize);
        withRdmaServer(provider, ip, (p, server) -> {
            try (SocketChannel client = provider.openSocketChannel()) {
                client.connect(server.getLocalAddress());
                try (SocketChannel peer = server.accept()) {
                    test.run(provider, client, peer);
                }
            }
        });
    }

    /** A provider with {@link #rdmaRules}. */
    static RdmaSelectorProvider rdmaProvider(String ip) {
        return RdmaSelectorProvider.withRules(rdmaRules(ip), false);
    }

    /** Rules that send every bind to and connect to {@code ip} over RDMA. */
    static String rdmaRules(String ip) {
        return "rdma bind " + ip + " *; rdma connect " + ip + " *";
    }

    /**
     * Runs {@code app} as {@link SystemProperties#runUnchangedApp} does, bound to the device's address and switched
     * over RDMA by {@link #rdmaRules} in {@code -Djrdma.nio.rules}, with {@code properties} besides; its output.
     */
    static String runUnchangedAppOverRdma(Device device, Class<?> app, String lastLine, String... properties)
            throws IOException, InterruptedException {
        String ip = address(device);
        List<String> all = new ArrayList<>(List.of("-Djrdma.nio.rules=" + rdmaRules(ip)));
        all.addAll(List.of(properties));
        return SystemProperties.runUnchangedApp(app, lastLine, ip, all.toArray(String[]::new));
    }

    /** {@link #rdmaProvider(String)} with rsocket buffers of {@code bufferSize}, or librdmacm's for 0. */
    static RdmaSelectorProvider rdmaProvider(String ip, int bufferSize) {
        return bufferSize == BufferSize.DEFAULT ? rdmaProvider(ip) : rdmaProvider(ip).withBufferSize(bufferSize);
    }

    /** The device's IPv4 address, as text: {@link DeviceAddresses#ipv4}. */
    static String address(Device device) throws IOException {
        return DeviceAddresses.ipv4(device).getHostAddress();
    }

    /**
     * The IPv6 link-local address, with its scope, of the network interface behind {@code device}'s port 1, once
     * duplicate address detection has let it be used (a tentative address cannot be bound).
     */
    static Inet6Address linkLocalAddress(Device device) throws IOException, InterruptedException {
        NetworkInterface nif = DeviceAddresses.netdev(device);
        for (int wait = 0; wait < 100; wait++) {
            for (InetAddress address : nif.inetAddresses().toList()) {
                if (address instanceof Inet6Address ip6 && ip6.isLinkLocalAddress() && !tentative(ip6, nif)) {
                    return ip6;
                }
            }
            Thread.sleep(100);
        }
        throw new IOException(nif.getName() + " has no usable IPv6 link-local address (is IPv6 disabled?)");
    }

    /** Whether {@code /proc/net/if_inet6} flags {@code ip} of {@code nif} tentative (IFA_F_TENTATIVE, 0x40). */
    private static boolean tentative(Inet6Address ip, NetworkInterface nif) throws IOException {
        StringBuilder hex = new StringBuilder();
        for (byte b : ip.getAddress()) {
            hex.append(String.format("%02x", b));
        }
        for (String line : Files.readAllLines(Path.of("/proc/net/if_inet6"))) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 6 && f[0].equals(hex.toString()) && f[5].equals(nif.getName())) {
                return (Integer.parseInt(f[4], 16) & 0x40) != 0;
            }
        }
        return true;
    }
}
