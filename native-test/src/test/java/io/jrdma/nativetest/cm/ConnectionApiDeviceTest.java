package io.jrdma.nativetest.cm;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.rdmacm.CmEventException;
import io.jrdma.rdmacm.ConnectionClosedException;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;
import io.jrdma.rdmacm.RemoteRegion;
import io.jrdma.ibverbs.RdmaException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static io.jrdma.nativetest.support.DeviceSupport.ipAddress;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The socket-like connection API on a real device: listener, connections, messages and one-sided operations. */
@RdmaDeviceTest
class ConnectionApiDeviceTest {
    private static final Duration T = Duration.ofSeconds(20);

    private static RdmaListener listener(Context ctx, ConnectionOptions options) throws Exception {
        return RdmaListener.bind(new InetSocketAddress(ipAddress(ctx), 0), options);
    }

    @Test
    void messagesReadsWritesAndAtomicsOnAdvertisedRegions(Context ctx) throws Exception {
        byte[] token = "client-42".getBytes(StandardCharsets.US_ASCII);
        try (RdmaListener listener = listener(ctx, ConnectionOptions.defaults())) {
            CompletableFuture<RdmaConnection> accepted = acceptAsync(listener);
            try (RdmaConnection client = RdmaConnection.connect(listener.localAddress(),
                    ConnectionOptions.defaults().withPrivateData(token), T);
                 RdmaConnection server = accepted.get(30, TimeUnit.SECONDS)) {
                assertArrayEquals(token, Arrays.copyOf(server.peerPrivateData(), token.length));
                assertEquals(client.localAddress(), server.peerAddress());

                MemoryRegion shared = server.register(1 << 16, Access.LOCAL_WRITE, Access.REMOTE_READ,
                        Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
                server.advertise(shared);
                client.send("hello server".getBytes(StandardCharsets.US_ASCII));
                assertEquals("hello server", new String(server.receive(T), StandardCharsets.US_ASCII));
                RemoteRegion remote = client.awaitRemoteRegion(T);
                assertEquals(RemoteRegion.of(shared), remote);

                MemoryRegion local = client.register(1 << 16, Access.LOCAL_WRITE);
                byte[] pattern = new byte[8192];
                new Random(7).nextBytes(pattern);
                MemorySegment.copy(pattern, 0, local.segment(), ValueLayout.JAVA_BYTE, 0, pattern.length);
                client.write(local, 0, remote, 4096, pattern.length);
                assertArrayEquals(pattern, shared.segment().asSlice(4096, pattern.length).toArray(ValueLayout.JAVA_BYTE));
                client.read(local, 32768, remote, 4096, pattern.length);
                assertArrayEquals(pattern, local.segment().asSlice(32768, pattern.length).toArray(ValueLayout.JAVA_BYTE));

                shared.segment().set(ValueLayout.JAVA_LONG, 0, 100);
                assertEquals(100, client.fetchAndAdd(remote, 0, 5));
                assertEquals(105, client.compareAndSwap(remote, 0, 99, 1), "no swap: 105 is not 99");
                assertEquals(105, client.compareAndSwap(remote, 0, 105, 7));
                assertEquals(7, shared.segment().get(ValueLayout.JAVA_LONG, 0));

                assertThrows(IllegalArgumentException.class, () -> client.fetchAndAdd(remote, 4, 1), "unaligned");
                assertThrows(IndexOutOfBoundsException.class, () -> client.read(local, 0, remote, 1 << 16, 1));
                assertThrows(IllegalArgumentException.class, () -> client.send(new byte[4097]));
                assertThrows(IllegalArgumentException.class, () -> client.write(shared, 0, remote, 0, 8),
                        "a region of another connection");
                assertNull(client.receive(Duration.ofMillis(100)));
            }
        }
    }

    @Test
    void aWrongRemoteKeyFailsTheOperationAndBreaksOnlyThatConnection(Context ctx) throws Exception {
        try (RdmaListener listener = listener(ctx, ConnectionOptions.defaults())) {
            CompletableFuture<RdmaConnection> accepted = acceptAsync(listener);
            try (RdmaConnection client = RdmaConnection.connect(listener.localAddress(), ConnectionOptions.defaults(), T);
                 RdmaConnection server = accepted.get(30, TimeUnit.SECONDS)) {
                MemoryRegion shared = server.register(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
                MemoryRegion local = client.register(4096, Access.LOCAL_WRITE);
                local.segment().fill((byte) 1);
                RemoteRegion forged = new RemoteRegion(shared.address(), shared.remoteKey() + 1, 4096);
                RdmaException e = assertThrows(RdmaException.class, () -> client.write(local, 0, forged, 0, 64));
                assertEquals("REM_ACCESS_ERR", e.errnoName(), e.getMessage());
                assertEquals(0, shared.segment().get(ValueLayout.JAVA_BYTE, 0), "no byte written");
                assertFalse(client.isOpen());
                assertThrows(ConnectionClosedException.class, () -> client.send(new byte[1]));
            }
        }
    }

    @Test
    void tenConcurrentClientsEachMoveAndVerifyTenMegabytes(Context ctx) throws Exception {
        int clients = 10;
        int messageSize = 64 * 1024;
        int messages = 10 * 1024 * 1024 / messageSize;
        ConnectionOptions options = ConnectionOptions.defaults().withMaxMessageSize(messageSize);
        try (RdmaListener listener = listener(ctx, options);
             ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> servers = new ArrayList<>();
            Future<?> acceptor = pool.submit(() -> {
                for (int i = 0; i < clients; i++) {
                    RdmaConnection c = listener.accept(Duration.ofMinutes(2));
                    assertNotNull(c, "client " + i + " did not arrive");
                    servers.add(pool.submit(() -> {
                        try (c) {
                            CRC32 crc = new CRC32();
                            long bytes = 0;
                            for (int m = 0; m < messages; m++) {
                                byte[] msg = c.receive(T);
                                assertNotNull(msg, "message " + m + " did not arrive");
                                crc.update(msg);
                                bytes += msg.length;
                            }
                            c.send(ByteBuffer.allocate(16).putLong(bytes).putLong(crc.getValue()).array());
                            // Nothing comes after the data: the client reads the answer and closes.
                            assertThrows(ConnectionClosedException.class, () -> c.receive(T));
                        }
                        return null;
                    }));
                }
                return null;
            });
            List<Future<Long>> sent = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                int seed = i;
                sent.add(pool.submit(() -> {
                    // Ten clients wait in line while the listener sets each one up: give the last one time.
                    try (RdmaConnection c = RdmaConnection.connect(listener.localAddress(), options,
                            Duration.ofMinutes(2))) {
                        Random random = new Random(seed);
                        CRC32 crc = new CRC32();
                        byte[] msg = new byte[messageSize];
                        for (int m = 0; m < messages; m++) {
                            random.nextBytes(msg);
                            crc.update(msg);
                            c.send(msg);
                        }
                        ByteBuffer answer = ByteBuffer.wrap(c.receive(T));
                        assertEquals((long) messages * messageSize, answer.getLong(), "bytes the server got");
                        assertEquals(crc.getValue(), answer.getLong(), "checksum of what the server got");
                        return (long) messages * messageSize;
                    }
                }));
            }
            long total = 0;
            for (Future<Long> f : sent) {
                total += f.get(10, TimeUnit.MINUTES);
            }
            acceptor.get(1, TimeUnit.MINUTES);
            for (Future<?> f : servers) {
                f.get(1, TimeUnit.MINUTES);
            }
            assertEquals(clients * 10L * 1024 * 1024, total);
        }
    }

    @Test
    void closingTheListenerWhileClientsConnectHangsNothingAndLosesNothing(Context ctx) throws Exception {
        int clients = 6;
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            RdmaListener listener = listener(ctx, ConnectionOptions.defaults());
            List<RdmaConnection> served = new ArrayList<>();
            List<Future<String>> outcomes = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                outcomes.add(pool.submit(() -> {
                    try (RdmaConnection c = RdmaConnection.connect(listener.localAddress(),
                            ConnectionOptions.defaults(), Duration.ofSeconds(15))) {
                        // Accepted: the connection must work end to end.
                        c.send("ping".getBytes(StandardCharsets.US_ASCII));
                        byte[] reply = c.receive(T);
                        assertNotNull(reply, "an accepted client gets its answer");
                        return "served";
                    } catch (CmEventException refused) {
                        return "refused";
                    }
                }));
            }
            // Serve two clients, then close while the others are connecting.
            for (int i = 0; i < 2; i++) {
                RdmaConnection c = listener.accept(T);
                assertNotNull(c);
                served.add(c);
            }
            listener.close();
            assertThrows(IllegalStateException.class, () -> listener.accept(Duration.ofMillis(10)));
            for (RdmaConnection c : served) {
                assertArrayEquals("ping".getBytes(StandardCharsets.US_ASCII), c.receive(T));
                c.send("pong".getBytes(StandardCharsets.US_ASCII));
            }
            int ok = 0;
            for (Future<String> f : outcomes) {
                if (f.get(2, TimeUnit.MINUTES).equals("served")) {
                    ok++;
                }
            }
            assertEquals(2, ok, "exactly the accepted clients were served; every other one heard a clear error");
            for (RdmaConnection c : served) {
                c.close();
            }
        }
    }

    @Test
    void closeAndAbortAreSeenByThePeer(Context ctx) throws Exception {
        try (RdmaListener listener = listener(ctx, ConnectionOptions.defaults())) {
            for (boolean graceful : new boolean[] {true, false}) {
                CompletableFuture<RdmaConnection> accepted = acceptAsync(listener);
                RdmaConnection client = RdmaConnection.connect(listener.localAddress(), ConnectionOptions.defaults(), T);
                try (RdmaConnection server = accepted.get(30, TimeUnit.SECONDS)) {
                    client.send(new byte[] {1});
                    if (graceful) {
                        client.close();
                    } else {
                        client.abort();
                    }
                    assertArrayEquals(new byte[] {1}, server.receive(T), "what was sent before still arrives");
                    assertThrows(ConnectionClosedException.class, () -> server.receive(T));
                    assertFalse(server.isOpen());
                    assertThrows(IllegalStateException.class, () -> client.send(new byte[1]));
                }
            }
        }
    }

    @Test
    void aPeerProcessKilledMidTransferIsSeenAsADisconnect(Context ctx) throws Exception {
        try (RdmaListener listener = listener(ctx, ConnectionOptions.defaults())) {
            Path childLog = Files.createTempFile("streaming-client", ".log");
            Process child = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    StreamingClient.class.getName(), listener.localAddress().getAddress().getHostAddress(),
                    Integer.toString(listener.localAddress().getPort()))
                    .redirectErrorStream(true).redirectOutput(childLog.toFile()).start();
            // A second JVM starting in an emulated VM needs its time.
            try (RdmaConnection server = listener.accept(Duration.ofMinutes(3))) {
                assertNotNull(server, "the child did not connect; it said:\n" + Files.readString(childLog));
                for (int i = 0; i < 10; i++) {
                    assertNotNull(server.receive(T), "streaming");
                }
                child.destroyForcibly().waitFor();
                long start = System.nanoTime();
                try {
                    while (server.receive(T) != null) {
                        if (System.nanoTime() - start > Duration.ofSeconds(60).toNanos()) {
                            fail("messages keep coming from a killed process");
                        }
                    }
                    fail("no message and no disconnect within " + T);
                } catch (ConnectionClosedException expected) {
                    assertFalse(server.isOpen());
                }
            } finally {
                child.destroyForcibly();
            }
        }
    }

    private static CompletableFuture<RdmaConnection> acceptAsync(RdmaListener listener) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return listener.accept(T);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
