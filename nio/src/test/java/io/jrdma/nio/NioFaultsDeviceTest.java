package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.internal.Fd;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RDMA channels under faults: a peer process killed in the middle of a stream, in either role, and half-closed
 * connections in blocking mode and on a selector.
 */
@RdmaDeviceTest
@Timeout(300)
class NioFaultsDeviceTest {
    /** The peer is killed once this much of its stream came. */
    private static final long KILL_AFTER = 4 << 20;
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(120);
    private static final int REQUEST = 1 << 20;
    private static final int REPLY = 3 << 20;

    @Test
    void aClientKilledMidStreamEndsItsStreamOnTheServerWhoseSelectorGoesOn(Device device) throws Exception {
        DeviceSupport.withRdmaServer(device, (provider, server) -> {
            String ip = address(server);
            long descriptors = rdmaDescriptors();
            Process peer = startPeer("connect", ip, Integer.toString(((InetSocketAddress) server.getLocalAddress())
                    .getPort()));
            try (SocketChannel stream = server.accept()) {
                survive(provider, server, stream, peer);
            } finally {
                peer.destroyForcibly();
            }
            assertEquals(descriptors, rdmaDescriptors(), "the connections' descriptors are closed");
        });
    }

    @Test
    void aServerKilledMidStreamEndsItsStreamOnTheClientWhoseSelectorGoesOn(Device device) throws Exception {
        DeviceSupport.withRdmaServer(device, (provider, server) -> {
            String ip = address(server);
            long descriptors = rdmaDescriptors();
            Process peer = startPeer("serve", ip);
            try (SocketChannel stream = provider.openSocketChannel()) {
                stream.connect(new InetSocketAddress(ip, Integer.parseInt(awaitLine(peer, "listening "))));
                survive(provider, server, stream, peer);
            } finally {
                peer.destroyForcibly();
            }
            assertEquals(descriptors, rdmaDescriptors(), "the connections' descriptors are closed");
        });
    }

    /**
     * A connected rsocket whose peer process was killed, the connection manager's disconnect left unread: its close
     * sends the connection's last message to a queue pair that is gone, which no one will acknowledge (Soft-RoCE
     * retries it for ever). The close must end once {@link ShutdownWatchdog} stops its wait, and free the socket.
     * The rsocket is connected in blocking mode, as a C program's would be, so that librdmacm's service thread does
     * not read the disconnect for it: that is the one thing that, read first, would spare the close its wait.
     */
    @Test
    void aCloseWhosePeerVanishedUnheardEndsAfterItsBound(Device device) throws Exception {
        DeviceSupport.withRdmaServer(device, (provider, server) -> {
            long descriptors = rdmaDescriptors();
            String ip = address(server);
            Process peer = startPeer("serve", ip);
            int fd;
            try {
                fd = connectBlocking(new InetSocketAddress(ip, Integer.parseInt(awaitLine(peer, "listening "))));
                awaitLine(peer, "streaming");
            } finally {
                peer.destroyForcibly();
            }
            assertTrue(peer.waitFor(60, TimeUnit.SECONDS));
            CompletableFuture<Void> closed = new CompletableFuture<>();
            long start = System.nanoTime();
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    Transport.rdma().close(fd);
                    closed.complete(null);
                } catch (Throwable t) {
                    closed.completeExceptionally(t);
                }
            });
            // A close that never ends leaves its daemon thread behind, and the test fails here.
            closed.get(ShutdownWatchdog.LIMIT_SECONDS + 120, TimeUnit.SECONDS);
            System.out.printf("the close ended %.1f s after it began%n", (System.nanoTime() - start) / 1e9);
            assertEquals(descriptors, rdmaDescriptors(), "the socket's descriptors are closed");
        });
    }

    private static String address(ServerSocketChannel server) throws IOException {
        return ((InetSocketAddress) server.getLocalAddress()).getAddress().getHostAddress();
    }

    /** A new rsocket connected to {@code remote} in blocking mode, with librdmacm's own calls. */
    @SuppressWarnings("restricted")
    private static int connectBlocking(InetSocketAddress remote) throws IOException {
        SymbolLookup rdmacm = RdmaLibrary.lookup();
        MethodHandle rsocket = Libc.downcall(rdmacm.findOrThrow("rsocket"), Libc.INT_3INT);
        MethodHandle rconnect = Libc.downcall(rdmacm.findOrThrow("rconnect"), Libc.ADDRESS_IN);
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) rsocket.invokeExact(Libc.AF_INET, Libc.SOCK_STREAM, 0);
            assertTrue(fd >= 0, "rsocket failed");
            MemorySegment address = SocketAddresses.encode(remote, arena);
            assertEquals(0, (int) rconnect.invokeExact(fd, address, (int) address.byteSize()), "rconnect failed");
            return fd;
        } catch (Throwable t) {
            throw Transport.rethrown(t);
        }
    }

    /**
     * The descriptors of this process that rsockets open for each connection: their connection manager event
     * channels and completion channels.
     */
    private static long rdmaDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.map(NioFaultsDeviceTest::target).filter(t -> t.equals("/dev/infiniband/rdma_cm")
                    || t.equals("anon_inode:[infinibandevent]")).count();
        }
    }

    private static String target(Path link) {
        try {
            return Files.readSymbolicLink(link).toString();
        } catch (IOException gone) {
            return "";   // the descriptor that listed the directory, closed since
        }
    }

    /** A {@link StreamingPeer} in a child JVM. */
    private static Process startPeer(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                StreamingPeer.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** What follows {@code prefix} on the first line of {@code peer}'s output that starts with it. */
    private static String awaitLine(Process peer, String prefix) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(peer.getInputStream()));
        StringBuilder seen = new StringBuilder();
        for (String line; (line = lines.readLine()) != null; seen.append(line).append('\n')) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length());
            }
        }
        throw new AssertionError("the peer ended without '" + prefix + "': " + seen);
    }

    /**
     * On one selector, reads {@code stream} from {@code peer} and echoes a second connection to {@code server}; kills
     * the peer once {@link #KILL_AFTER} bytes came. The stream must then end (end of stream or an exception), what
     * came before must be the peer's bytes in order, and the second connection must still echo through the selector.
     */
    private static void survive(RdmaSelectorProvider provider, ServerSocketChannel server, SocketChannel stream,
                                Process peer) throws Exception {
        assertTrue(((SocketChannelImpl) stream).isRdma());
        try (Selector selector = provider.openSelector(); SocketChannel other = provider.openSocketChannel()) {
            other.connect(server.getLocalAddress());
            SocketChannel otherPeer = server.accept();
            assertTrue(rdmaDescriptors() >= 6, "the three connected rsockets here have two channels each");
            otherPeer.configureBlocking(false).register(selector, SelectionKey.OP_READ, ByteBuffer.allocateDirect(4096));
            SelectionKey streamKey = stream.configureBlocking(false).register(selector, SelectionKey.OP_READ);
            PatternStreams.Receiver received = new PatternStreams.Receiver(0);
            String end = null;
            long start = System.nanoTime();
            long killed = 0;
            while (end == null) {
                assertTrue(System.nanoTime() - start < DEADLINE_NANOS, "the stream never ended: "
                        + received.received() + " bytes came, the peer is " + (peer.isAlive() ? "alive" : "dead"));
                selector.select(1000);
                for (SelectionKey key : selector.selectedKeys()) {
                    if (key != streamKey) {
                        Echo.echo(key);
                        continue;
                    }
                    try {
                        if (received.receive(stream) < 0) {
                            end = "the end of the stream";
                        }
                    } catch (IOException e) {
                        end = e.toString();
                    }
                    if (received.received() >= KILL_AFTER && killed == 0) {
                        peer.destroyForcibly();
                        killed = System.nanoTime();
                    }
                }
                selector.selectedKeys().clear();
            }
            assertTrue(peer.waitFor(60, TimeUnit.SECONDS));
            assertTrue(received.received() >= KILL_AFTER, "the stream ended before the kill: " + end);
            System.out.printf("peer killed: %d bytes in order, then %s, %.1f s after the kill%n", received.received(),
                    end, (System.nanoTime() - killed) / 1e9);
            streamKey.cancel();
            selector.selectNow();
            assertEquals(1, selector.keys().size(), "the killed stream's key is gone, the other's stays");
            echoesOnSelector(selector, other);
        }
    }

    /** {@code other} (blocking) echoes 256 KiB, checked, through its peer on {@code selector}, which this thread runs. */
    private static void echoesOnSelector(Selector selector, SocketChannel other) throws Exception {
        CompletableFuture<Void> echoed = CompletableFuture.runAsync(() -> {
            try {
                Echo.roundTripBlocking(other, 256 << 10);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long start = System.nanoTime();
        while (!echoed.isDone()) {
            assertTrue(System.nanoTime() - start < DEADLINE_NANOS, "the other connection stopped echoing");
            selector.select(100);
            for (SelectionKey key : selector.selectedKeys()) {
                Echo.echo(key);
            }
            selector.selectedKeys().clear();
        }
        Echo.await(echoed);
    }

    @Test
    void halfClosedConnectionsInBlockingMode(Device device) throws Exception {
        DeviceSupport.withRdmaPair(device, BufferSize.DEFAULT, NioFaultsDeviceTest::halfCloseBlocking);
    }

    /**
     * The client sends a request and shuts its output down; the server reads it all and then the end of the stream,
     * and its reply, written after that, arrives whole. A write after {@code shutdownOutput} throws.
     */
    private static void halfCloseBlocking(RdmaSelectorProvider provider, SocketChannel client, SocketChannel peer)
            throws Exception {
        CompletableFuture<Void> requested = sendAsync(client, REQUEST, true);
        assertEquals(REQUEST, new PatternStreams.Receiver(0).receiveAll(peer), "the request, then its end");
        Echo.await(requested);
        assertThrows(ClosedChannelException.class, () -> client.write(ByteBuffer.allocate(1)));
        CompletableFuture<Void> replied = sendAsync(peer, REPLY, false);
        assertEquals(REPLY, new PatternStreams.Receiver(0).receive(client, REPLY),
                "the reply written after the end of the request");
        Echo.await(replied);
    }

    @Test
    void aShutInputReadsTheEndThoughBytesWaitAndTheOutputStillWorks(Device device) throws Exception {
        DeviceSupport.withRdmaPair(device, BufferSize.DEFAULT, (provider, client, peer) -> {
            peer.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            awaitReadable(client);
            client.shutdownInput();
            assertEquals(-1, client.read(ByteBuffer.allocate(3)), "the end, though 3 bytes wait");
            CompletableFuture<Void> written = sendAsync(client, REQUEST, false);
            assertEquals(REQUEST, new PatternStreams.Receiver(0).receive(peer, REQUEST),
                    "what the client wrote after shutting its input");
            Echo.await(written);
        });
    }

    /** Sends the pattern's first {@code count} bytes on another thread, in blocking mode, then maybe shuts down. */
    private static CompletableFuture<Void> sendAsync(SocketChannel channel, long count, boolean shutdownOutput) {
        return CompletableFuture.runAsync(() -> {
            try {
                new PatternStreams.Sender(0, count).send(channel);
                if (shutdownOutput) {
                    channel.shutdownOutput();
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Returns once bytes wait to be read on {@code channel}, or fails. */
    private static void awaitReadable(SocketChannel channel) throws IOException, InterruptedException {
        NativeSocket socket = ((SocketChannelImpl) channel).nativeSocket();
        long start = System.nanoTime();
        while (Fd.ready(socket.transport()::look, socket.fd(), Libc.POLLIN) == 0) {
            assertTrue(System.nanoTime() - start < DEADLINE_NANOS, "nothing came");
            Thread.sleep(1);
        }
    }

    @Test
    void halfClosedConnectionsOnASelector(Device device) throws Exception {
        DeviceSupport.withRdmaPair(device, BufferSize.DEFAULT, NioFaultsDeviceTest::halfCloseSelecting);
    }

    /**
     * On one selector: the client writes a request and shuts its output down; the server's {@code OP_READ} brings the
     * request and then the end of the stream, after which it writes its reply through {@code OP_WRITE} and shuts
     * down in turn; the client reads the reply whole and then the end. After the client's {@code shutdownInput} its
     * key is readable at once and reads the end of the stream.
     */
    private static void halfCloseSelecting(RdmaSelectorProvider provider, SocketChannel client, SocketChannel peer)
            throws Exception {
        try (Selector selector = provider.openSelector()) {
            SelectionKey clientKey = client.configureBlocking(false).register(selector, SelectionKey.OP_WRITE);
            SelectionKey peerKey = peer.configureBlocking(false).register(selector, SelectionKey.OP_READ);
            PatternStreams.Sender request = new PatternStreams.Sender(0, REQUEST);
            PatternStreams.Receiver requestIn = new PatternStreams.Receiver(0);
            PatternStreams.Sender reply = new PatternStreams.Sender(0, REPLY);
            PatternStreams.Receiver replyIn = new PatternStreams.Receiver(0);
            boolean replied = false;
            long start = System.nanoTime();
            while (!replied) {
                assertTrue(System.nanoTime() - start < DEADLINE_NANOS, "request " + requestIn.received()
                        + " of " + REQUEST + ", reply " + replyIn.received() + " of " + REPLY);
                selector.select(1000);
                for (SelectionKey key : selector.selectedKeys()) {
                    if (key == clientKey && key.isWritable() && request.send(client)) {
                        client.shutdownOutput();
                        clientKey.interestOps(SelectionKey.OP_READ);
                    } else if (key == clientKey && key.isReadable() && replyIn.receive(client) < 0) {
                        replied = true;
                    } else if (key == peerKey && key.isReadable() && requestIn.receive(peer) < 0) {
                        assertEquals(REQUEST, requestIn.received(), "the request, then its end");
                        peerKey.interestOps(SelectionKey.OP_WRITE);
                    } else if (key == peerKey && key.isWritable() && reply.send(peer)) {
                        peer.shutdownOutput();
                        peerKey.interestOps(0);
                    }
                }
                selector.selectedKeys().clear();
            }
            assertEquals(REPLY, replyIn.received(), "the reply written after the end of the request");
            client.shutdownInput();
            assertEquals(1, selector.selectNow(), "a shut input is readable");
            assertTrue(clientKey.isReadable());
            assertEquals(-1, client.read(ByteBuffer.allocate(1)));
        }
    }
}
