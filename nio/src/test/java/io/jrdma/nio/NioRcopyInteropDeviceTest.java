package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The provider's RDMA channels against librdmacm's C {@code rcopy} in both roles, speaking its protocol: 16-byte
 * little-endian headers (version, command, length, data, id), OPEN with the destination path and mode, WRITE with
 * the size and then the file's bytes, CLOSE; the server answers each with the command's response and a status. The
 * file that arrives is compared byte for byte with the one sent.
 */
@RdmaDeviceTest
class NioRcopyInteropDeviceTest {
    private static final int OPEN = 1;
    private static final int CLOSE = 2;
    private static final int WRITE = 3;
    private static final int RESPONSE = 0x80;
    private static final int HEADER = 16;
    private static final int FILE_SIZE = 4 << 20;

    @Test
    void rcopyClientAgainstJavaServer(Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        byte[] file = content(1);
        Path source = Files.createTempFile("rcopy-source", ".bin");
        Files.write(source, file);
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("rdma bind " + ip + " *", false);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(new InetSocketAddress(ip, 0))) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            CompletableFuture<String> served = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> {
                try (SocketChannel peer = server.accept()) {
                    assertTrue(((SocketChannelImpl) peer).isRdma());
                    served.complete(serve(peer, file));
                } catch (Throwable t) {
                    served.completeExceptionally(t);
                }
            });
            Process client = new ProcessBuilder("rcopy", source.toString(), ip + ":/tmp/rcopy-destination", "-p",
                    Integer.toString(port)).redirectErrorStream(true).start();
            assertTrue(client.waitFor(120, TimeUnit.SECONDS), "rcopy ends");
            String output = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String java = served.handle((path, e) -> e == null ? "served " + path : "failed: " + e).get(60,
                    TimeUnit.SECONDS);
            assertEquals(0, client.exitValue(), output + "\nthe Java server " + java);
            assertTrue(output.contains(FILE_SIZE + " bytes in "), output);
            assertEquals("/tmp/rcopy-destination", served.get(60, TimeUnit.SECONDS), "the path rcopy asked for");
        } finally {
            Files.deleteIfExists(source);
        }
    }

    @Test
    void javaClientAgainstRcopyServer(Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        int port = 7474;
        byte[] file = content(2);
        Path destination = Path.of("/tmp/rcopy-from-java-" + ProcessHandle.current().pid());
        Path log = Files.createTempFile("rcopy-server", ".log");
        Process server = new ProcessBuilder("rcopy", "-p", Integer.toString(port)).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("rdma connect " + ip + " *", false);
            try (SocketChannel client = CPeers.connectWhenListening(provider, new InetSocketAddress(ip, port),
                    channel -> { })) {
                assertTrue(((SocketChannelImpl) client).isRdma());
                byte[] path = destination.toString().getBytes(StandardCharsets.US_ASCII);
                // rcopy pads the path with NULs to the next multiple of 8, at least one NUL.
                ByteBuffer open = header(OPEN, HEADER + ((path.length + 8) & ~7), 0644, 1)
                        .put(Arrays.copyOf(path, (path.length + 8) & ~7)).flip();
                try {
                    request(client, open, OPEN);
                } catch (AssertionError e) {
                    server.destroy();
                    server.waitFor();
                    throw new AssertionError(e.getMessage() + "; rcopy said: " + Files.readString(log), e);
                }
                ByteBuffer write = header(WRITE, HEADER + 8, 0, 2).putLong(file.length).flip();
                writeFully(client, write);
                writeFully(client, ByteBuffer.wrap(file));
                expectResponse(client, WRITE);
                request(client, header(CLOSE, HEADER, 0, 3).flip(), CLOSE);
            }
            assertArrayEquals(file, Files.readAllBytes(destination), "the file rcopy wrote is the one sent");
        } finally {
            server.destroyForcibly();
            Files.deleteIfExists(destination);
        }
    }

    /** rcopy's server side, for one connection: returns the path it was asked to write, once the file is checked. */
    private static String serve(SocketChannel peer, byte[] expected) throws IOException {
        String path = null;
        CRC32 crc = new CRC32();
        long received = 0;
        StringBuilder seen = new StringBuilder();
        while (true) {
            ByteBuffer h = readFully(peer, HEADER);
            if (h == null) {
                break;   // the client shut the connection down after CLOSE
            }
            seen.append(" hdr ").append(HexFormat.of().formatHex(bytes(h)));
            assertEquals(0, h.get(0), "version" + seen);
            int command = h.get(1);
            int length = Short.toUnsignedInt(h.getShort(2));
            switch (command) {
                case OPEN -> {
                    path = StandardCharsets.US_ASCII.decode(readFully(peer, length - HEADER)).toString()
                            .replace("\0", "");
                    seen.append(" path ").append(path);
                }
                case WRITE -> {
                    long size = readFully(peer, 8).getLong(0);
                    assertEquals(expected.length, size, "the size announced");
                    ByteBuffer chunk = ByteBuffer.allocateDirect(64 << 10);
                    byte[] copy = new byte[chunk.capacity()];
                    for (long left = size; left > 0; ) {
                        chunk.clear().limit((int) Math.min(left, chunk.capacity()));
                        int n = peer.read(chunk);
                        assertTrue(n > 0, "rcopy's data ended " + left + " bytes early");
                        chunk.flip().get(copy, 0, n);
                        assertArrayEquals(Arrays.copyOfRange(expected, (int) received, (int) received + n),
                                Arrays.copyOf(copy, n), "bytes from " + received);
                        crc.update(copy, 0, n);
                        received += n;
                        left -= n;
                    }
                }
                case CLOSE -> { }
                default -> throw new AssertionError("unknown rcopy command " + command);
            }
            writeFully(peer, header(command | RESPONSE, HEADER, 0, h.getLong(8)).flip());
        }
        assertEquals(expected.length, received, "bytes received");
        return path;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    private static ByteBuffer header(int command, int length, int data, long id) {
        return ByteBuffer.allocateDirect(length).order(ByteOrder.LITTLE_ENDIAN).put((byte) 0).put((byte) command)
                .putShort((short) length).putInt(data).putLong(id);
    }

    private static void request(SocketChannel channel, ByteBuffer message, int command) throws IOException {
        writeFully(channel, message);
        expectResponse(channel, command);
    }

    private static void expectResponse(SocketChannel channel, int command) throws IOException {
        ByteBuffer r = readFully(channel, HEADER);
        assertTrue(r != null, "rcopy answered command " + command);
        assertEquals(command | RESPONSE, Byte.toUnsignedInt(r.get(1)), "the response's command");
        assertEquals(0, r.getInt(4), "rcopy's status for command " + command);
    }

    private static void writeFully(SocketChannel channel, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            channel.write(b);
        }
    }

    /** Exactly {@code n} bytes, little-endian; null if the stream ends before the first. */
    private static ByteBuffer readFully(SocketChannel channel, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocateDirect(n).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (channel.read(b) < 0) {
                if (b.position() == 0) {
                    return null;
                }
                throw new AssertionError("the stream ended inside a message, " + b.remaining() + " bytes short");
            }
        }
        return b.flip();
    }

    private static byte[] content(long seed) {
        byte[] b = new byte[FILE_SIZE];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }
}
