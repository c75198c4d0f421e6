package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RDMA channels under load: a gibibyte through one connection, CRC-checked, and 256 connections open at once, each
 * echoing, with the memory they pin measured against the bound the buffer size sets.
 */
@RdmaDeviceTest
@Timeout(600)
class NioLoadDeviceTest {
    private static final long GIBIBYTE = 1L << 30;
    private static final int BLOCK = 1 << 20;
    private static final int CONNECTIONS = 256;
    private static final int ECHOED = 4096;
    private static final long PAGE = 4096;
    private static final long DEADLINE_NANOS = 300_000_000_000L;

    @Test
    void aGibibyteThroughOneConnectionArrivesWithTheSameCrc(Device device) throws Exception {
        // 1 MiB buffers let eight 64 KiB writes, rsockets' largest, be under way at once, not one.
        DeviceSupport.withRdmaPair(device, 1 << 20, NioLoadDeviceTest::gibibyte);
    }

    private static void gibibyte(RdmaSelectorProvider provider, SocketChannel client, SocketChannel peer)
            throws Exception {
        assertTrue(((SocketChannelImpl) peer).isRdma());
        long start = System.nanoTime();
        CompletableFuture<Long> sent = CompletableFuture.supplyAsync(() -> send(client));
        CRC32 crc = new CRC32();
        ByteBuffer in = ByteBuffer.allocateDirect(BLOCK);
        long received = 0;
        while (peer.read(in.clear()) >= 0) {
            received += in.flip().remaining();
            crc.update(in);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(GIBIBYTE, received, "bytes received");
        assertEquals(Echo.await(sent), crc.getValue(), "the CRC-32 of the bytes received and of those sent");
        System.out.printf("1 GiB over one rsocket connection: %.1f s, %.1f MiB/s%n", seconds,
                GIBIBYTE / (1 << 20) / seconds);
    }

    /** Writes a gibibyte of random blocks, each numbered, and shuts the output down; their CRC-32. */
    private static long send(SocketChannel channel) {
        byte[] random = new byte[BLOCK];
        new SplittableRandom(7).nextBytes(random);
        ByteBuffer block = ByteBuffer.allocateDirect(BLOCK).put(random);
        CRC32 crc = new CRC32();
        try {
            for (long i = 0; i < GIBIBYTE / BLOCK; i++) {
                // A number in each block makes blocks that arrive in the wrong order change the CRC.
                block.clear().putLong(0, i);
                crc.update(block.duplicate());
                while (block.hasRemaining()) {
                    channel.write(block);
                }
            }
            channel.shutdownOutput();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return crc.getValue();
    }

    /**
     * One connection: the memory pinned (VmPin, which counts the pages registered with the device) grows by at least
     * the buffers of its two channels, which getOption reports, and by at most those plus a page per channel; it goes
     * back when they close. {@code bufferSize} 0 is librdmacm's default.
     */
    @ParameterizedTest(name = "bufferSize {0}")
    @ValueSource(ints = {0, 16 << 10})
    void aConnectionPinsItsBuffersAndAPagePerChannel(int bufferSize, Device device) throws Exception {
        pinsBoundedMemory(1, bufferSize, device);
    }

    /**
     * 256 connections made at once and all kept open, then each echoes 4 KiB at once on one selector, each byte
     * checked; what they pin is bounded as for one. On librdmacm before rdma-core 53 this needs the provider's
     * {@link ConnectService}: without it, its connection service thread polls a freed array once a process has
     * more than three connected rsockets, which corrupts the heap.
     */
    @ParameterizedTest(name = "bufferSize {0}")
    @ValueSource(ints = {0, 16 << 10})
    void twoHundredFiftySixConnectionsAtOncePinBoundedMemory(int bufferSize, Device device) throws Exception {
        pinsBoundedMemory(CONNECTIONS, bufferSize, device);
    }

    /**
     * {@code connections} connections to one server, all open at once, each echoing 4 KiB on one selector; the memory
     * they pin is at least their buffers and at most those and a page a channel, and is unpinned when they close.
     */
    private static void pinsBoundedMemory(int connections, int bufferSize, Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        RdmaSelectorProvider provider = DeviceSupport.rdmaProvider(ip, bufferSize);
        long before = pinnedBytes();
        List<SocketChannel> clients = new ArrayList<>();
        List<SocketChannel> peers = new ArrayList<>();
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(new InetSocketAddress(ip, 0));
             Selector selector = provider.openSelector()) {
            long start = System.nanoTime();
            connectAll(selector, provider, server, connections, clients, peers);
            System.out.printf("%d connections made in %.1f s%n", connections, (System.nanoTime() - start) / 1e9);
            long perChannel = buffers(clients.getFirst());
            assertEquals(perChannel, buffers(peers.getFirst()), "an accepted channel has its listener's buffers");
            if (bufferSize != 0) {
                assertEquals(2L * bufferSize, perChannel, "the buffer size asked for");
            }
            long pinned = pinnedBytes() - before;
            long channels = 2L * connections;
            System.out.printf("%d connections (%d RDMA channels), bufferSize %s: %d bytes pinned, %d a channel "
                            + "(buffers %d); %s%n", connections, channels, bufferSize == 0 ? "default" : bufferSize,
                    pinned, pinned / channels, perChannel, memlockLimit());
            assertTrue(pinned >= channels * perChannel, "VmPin counts the registered buffers: " + pinned);
            assertTrue(pinned <= channels * (perChannel + PAGE), "at most the buffers and a page a channel: "
                    + pinned);
            echoAtOnce(selector, clients, peers);
        } finally {
            for (SocketChannel c : clients) {
                c.close();
            }
            for (SocketChannel c : peers) {
                c.close();
            }
        }
        assertTrue(pinnedBytes() - before <= 2 * PAGE, "the closed channels' memory is unpinned: "
                + (pinnedBytes() - before));
    }

    /**
     * Makes {@code connections} connections to {@code server} at once on {@code selector}: every client connects
     * without waiting, the server accepts as they come; the channels stay registered, with no interest.
     */
    private static void connectAll(Selector selector, RdmaSelectorProvider provider, ServerSocketChannel server,
                                   int connections, List<SocketChannel> clients, List<SocketChannel> peers)
            throws IOException {
        SelectionKey accepting = server.configureBlocking(false).register(selector, SelectionKey.OP_ACCEPT);
        int connected = 0;
        for (int i = 0; i < connections; i++) {
            SocketChannel client = provider.openSocketChannel();
            clients.add(client);
            client.configureBlocking(false);
            boolean now = client.connect(server.getLocalAddress());
            client.register(selector, now ? 0 : SelectionKey.OP_CONNECT);
            connected += now ? 1 : 0;
        }
        long start = System.nanoTime();
        while (connected < connections || peers.size() < connections) {
            assertTrue(System.nanoTime() - start < DEADLINE_NANOS, connected + " connected, " + peers.size()
                    + " accepted of " + connections);
            selector.select(1000);
            for (SelectionKey key : selector.selectedKeys()) {
                if (key == accepting) {
                    for (SocketChannel peer; (peer = server.accept()) != null; ) {
                        peers.add(peer);
                        peer.configureBlocking(false).register(selector, 0);
                    }
                } else if (((SocketChannel) key.channel()).finishConnect()) {
                    key.interestOps(0);
                    connected++;
                }
            }
            selector.selectedKeys().clear();
        }
        accepting.cancel();
    }

    /** The bytes of {@code channel}'s send and receive buffers, as the rsocket reports them. */
    private static long buffers(SocketChannel channel) throws IOException {
        return (long) channel.getOption(StandardSocketOptions.SO_SNDBUF)
                + channel.getOption(StandardSocketOptions.SO_RCVBUF);
    }

    /** Every client writes its own 4 KiB of the pattern, its peer echoes it, and it reads it back checked. */
    private static void echoAtOnce(Selector selector, List<SocketChannel> clients, List<SocketChannel> peers)
            throws Exception {
        for (SocketChannel peer : peers) {
            peer.keyFor(selector).interestOps(SelectionKey.OP_READ).attach(ByteBuffer.allocateDirect(ECHOED));
        }
        for (int i = 0; i < clients.size(); i++) {
            clients.get(i).keyFor(selector).interestOps(SelectionKey.OP_WRITE | SelectionKey.OP_READ)
                    .attach(new Client(i * (long) ECHOED));
        }
        int done = 0;
        long start = System.nanoTime();
        while (done < clients.size()) {
            assertTrue(System.nanoTime() - start < DEADLINE_NANOS, done + " of " + clients.size() + " echoed");
            selector.select(1000);
            for (SelectionKey key : selector.selectedKeys()) {
                if (key.attachment() instanceof Client client) {
                    done += client.step(key) ? 1 : 0;
                } else {
                    Echo.echo(key);
                }
            }
            selector.selectedKeys().clear();
        }
    }

    /** A client's echo: its bytes out, then back. */
    private static final class Client {
        private final PatternStreams.Sender out;
        private final PatternStreams.Receiver in;

        Client(long from) {
            out = new PatternStreams.Sender(from, ECHOED);
            in = new PatternStreams.Receiver(from);
        }

        /** One readiness; true when all came back (the key then has no interest left). */
        boolean step(SelectionKey key) throws IOException {
            SocketChannel channel = (SocketChannel) key.channel();
            if (key.isWritable() && out.send(channel)) {
                key.interestOps(SelectionKey.OP_READ);
            }
            if (key.isReadable()) {
                assertTrue(in.receive(channel) >= 0, "the echo ended after " + in.received());
                if (in.received() == ECHOED) {
                    key.interestOps(0);
                    return true;
                }
            }
            return false;
        }
    }

    /** The process's pinned memory: the kernel's {@code VmPin}, which counts the pages registered with the device. */
    private static long pinnedBytes() throws IOException {
        return statusKilobytes("VmPin:") * 1024;
    }

    private static long statusKilobytes(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.substring(field.length()).strip().split("\\s+")[0]);
            }
        }
        throw new IOException("no " + field + " in /proc/self/status");
    }

    private static String memlockLimit() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/limits")).stream().filter(l -> l.startsWith("Max locked memory"))
                .findFirst().orElse("no memlock limit shown").replaceAll("\\s+", " ");
    }

    @Test
    void theBufferSizePropertyReachesAnUnchangedApplication(Device device) throws Exception {
        String output = DeviceSupport.runUnchangedAppOverRdma(device, UnchangedEchoApp.class, "echoes whole",
                "-Djrdma.nio.bufferSize=32k");
        assertTrue(output.contains("rdma socket") && output.contains("receive buffer 32768\n"), output);
    }
}
