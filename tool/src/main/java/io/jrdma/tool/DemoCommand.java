package io.jrdma.tool;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;
import io.jrdma.rdmacm.RemoteRegion;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * {@code jrdma demo [-a ADDRESS] [-n ITERATIONS]}: a server and a client in this process, connected through the
 * connection manager, moving data with send/receive, RDMA write and read, and atomics, each checked, with latencies.
 *
 * {@snippet lang=shell :
 * $ jrdma demo -n 200
 * }
 */
@Command(name = "demo", sortOptions = false,
        description = "A server and a client in this process, connected through the CM: send/receive, RDMA write "
                + "and read, and atomics, each checked, with latencies.")
final class DemoCommand extends ToolCommand {
    private static final Duration T = Duration.ofSeconds(30);
    private static final int REGION = 1 << 20;
    private static final int CHUNK = 64 * 1024;
    private static final byte[] BYE = "bye".getBytes(StandardCharsets.US_ASCII);

    @Option(names = {"-a", "--address"}, paramLabel = "<address>",
            description = "the address both sides use (default the first RoCE device's IPv4 address)")
    private InetAddress address;

    @Option(names = {"-n", "--iters"}, paramLabel = "<n>", description = "iterations of each test (default ${DEFAULT-VALUE})")
    private int iterations = 1000;

    DemoCommand(PrintStream out, PrintStream err) {
        super(out, err);
    }

    @Override
    public Integer call() throws Exception {
        check("-n", iterations, 1, Integer.MAX_VALUE);
        if (address == null) {
            address = firstRoceAddress();
        }
        out.println("jrdma demo: a server and a client on " + address.getHostAddress()
                + ", connected through the RDMA connection manager");
        try (RdmaListener listener = RdmaListener.bind(new InetSocketAddress(address, 0),
                ConnectionOptions.defaults().withPrivateData("welcome".getBytes(StandardCharsets.US_ASCII)))) {
            out.println("server:  listening on " + show(listener.localAddress()));
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> serve(listener));
            try (RdmaConnection client = RdmaConnection.connect(listener.localAddress(),
                    ConnectionOptions.defaults().withPrivateData("jrdma demo".getBytes(StandardCharsets.US_ASCII)),
                    T)) {
                out.println("client:  connected from " + show(client.localAddress()) + ", the server said \""
                        + text(client.peerPrivateData()) + "\"");
                exchangeMessages(client, iterations);
                RemoteRegion remote = client.awaitRemoteRegion(T);
                out.printf(Locale.ROOT, "client:  the server advertised %d bytes at 0x%x, rkey 0x%x%n", remote.length(),
                        remote.address(), remote.remoteKey());
                MemoryRegion local = client.register(2L * REGION, Access.LOCAL_WRITE);
                writeAndRead(client, local, remote, iterations);
                atomics(client, remote, iterations);
                client.send(BYE);
            }
            join(server);
        }
        out.println("done:    both sides closed, everything released");
        return 0;
    }

    private void serve(RdmaListener listener) {
        try (RdmaConnection c = listener.accept(T)) {
            if (c == null) {
                throw new IllegalStateException("no client came within " + T);
            }
            out.println("server:  accepted " + show(c.peerAddress()) + ", which sent \""
                    + text(c.peerPrivateData()) + "\"");
            // The region the client writes, reads and counts in; only this connection may touch it.
            MemoryRegion shared = c.register(REGION, Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE,
                    Access.REMOTE_ATOMIC);
            c.advertise(shared);
            for (byte[] m = c.receive(T); m != null && !Arrays.equals(m, BYE); m = c.receive(T)) {
                c.send(m);
            }
        } catch (RdmaException | InterruptedException e) {
            throw new IllegalStateException("server: " + e.getMessage(), e);
        }
    }

    private void exchangeMessages(RdmaConnection client, int iterations) throws Exception {
        byte[] ping = new byte[64];
        long[] rtt = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            ping[0] = (byte) i;
            long start = System.nanoTime();
            client.send(ping);
            byte[] echo = client.receive(T);
            rtt[i] = System.nanoTime() - start;
            if (!Arrays.equals(ping, echo)) {
                throw new IllegalStateException("echo " + i + " differs from what was sent");
            }
        }
        out.println("send:    " + iterations + " messages of 64 B echoed, each checked; round trip "
                + Latencies.of(rtt));
    }

    private void writeAndRead(RdmaConnection client, MemoryRegion local, RemoteRegion remote, int iterations)
            throws Exception {
        MemorySegment buf = local.segment();
        byte[] pattern = new byte[REGION];
        new Random(42).nextBytes(pattern);
        MemorySegment.copy(pattern, 0, buf, ValueLayout.JAVA_BYTE, 0, REGION);
        long start = System.nanoTime();
        for (int off = 0; off < REGION; off += CHUNK) {
            client.write(local, off, remote, off, CHUNK);
        }
        long wrote = System.nanoTime() - start;
        start = System.nanoTime();
        for (int off = 0; off < REGION; off += CHUNK) {
            client.read(local, REGION + off, remote, off, CHUNK);
        }
        long read = System.nanoTime() - start;
        if (buf.asSlice(REGION, REGION).mismatch(buf.asSlice(0, REGION)) != -1) {
            throw new IllegalStateException("what was read back differs from what was written");
        }
        out.printf(Locale.ROOT, "write:   1 MiB RDMA-written into the server in 64 KiB pieces in %.1f ms (%.1f MB/s)%n",
                wrote / 1e6, REGION / (wrote / 1e9) / 1e6);
        out.printf(Locale.ROOT, "read:    1 MiB RDMA-read back in %.1f ms (%.1f MB/s), identical byte for byte%n",
                read / 1e6, REGION / (read / 1e9) / 1e6);
        long[] small = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            long t = System.nanoTime();
            client.write(local, 0, remote, 0, 64);
            small[i] = System.nanoTime() - t;
        }
        out.println("write:   " + iterations + " RDMA writes of 64 B, each to completion: " + Latencies.of(small));
    }

    private void atomics(RdmaConnection client, RemoteRegion remote, int iterations) throws Exception {
        long[] lat = new long[iterations];
        // The writes left data in the counter's place: read it (a swap of 0 for 0 changes nothing), then zero it.
        long leftOver = client.compareAndSwap(remote, 0, 0, 0);
        client.compareAndSwap(remote, 0, leftOver, 0);
        for (int i = 0; i < iterations; i++) {
            long t = System.nanoTime();
            long before = client.fetchAndAdd(remote, 0, 1);
            lat[i] = System.nanoTime() - t;
            if (before != i) {
                throw new IllegalStateException("fetch-and-add " + i + " saw " + before);
            }
        }
        long swapped = client.compareAndSwap(remote, 0, iterations, 7);
        long now = client.compareAndSwap(remote, 0, 0, 0);
        if (swapped != iterations || now != 7) {
            throw new IllegalStateException("compare-and-swap saw " + swapped + ", left " + now);
        }
        out.println("atomic:  " + iterations + " fetch-and-adds counted 0 to " + iterations
                + ", then compare-and-swap set 7 (both checked): " + Latencies.of(lat));
    }

    /** The IPv4 address in the first RoCE v2 GID of the first device: where the CM can reach it. */
    private static InetAddress firstRoceAddress() throws Exception {
        for (Device d : Device.list()) {
            try (Context ctx = Context.open(d.name())) {
                int index = RoceGids.ipv4Index(ctx, 1);
                if (index >= 0) {
                    return InetAddress.getByAddress(Arrays.copyOfRange(ctx.queryGid(1, index).gid(), 12, 16));
                }
            }
        }
        throw new IllegalArgumentException("demo: no device with an IPv4 RoCE address; give one with -a ADDRESS "
                + "(e.g. the IPoIB address of an InfiniBand port)");
    }

    private static void join(CompletableFuture<Void> server) throws Exception {
        try {
            server.get(T.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private static String show(InetSocketAddress a) {
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    private static String text(byte[] privateData) {
        int end = 0;
        while (end < privateData.length && privateData[end] != 0) {
            end++;
        }
        return new String(privateData, 0, end, StandardCharsets.US_ASCII);
    }
}
