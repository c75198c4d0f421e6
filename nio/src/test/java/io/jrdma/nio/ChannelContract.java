package io.jrdma.nio;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import org.junit.jupiter.params.provider.Arguments;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Parts of the channel contract the provider's two kinds must both keep, each against a listening server channel:
 * run over TCP in the unit tier and over RDMA on the device.
 */
final class ChannelContract {
    private ChannelContract() {
    }

    /** Returns once {@code thread} waits (a blocked read pauses between polls), or fails after 30 s. */
    private static void awaitWaiting(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (thread.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(System.nanoTime() < deadline, "the reader never blocked: " + thread.getState());
            Thread.sleep(1);
        }
    }

    /** A check against a listening server channel of {@code provider}. */
    interface Check {
        void run(RdmaSelectorProvider provider, ServerSocketChannel server) throws Exception;
    }

    /** Every check, named, for a {@code @ParameterizedTest}'s {@code @MethodSource}. */
    static Stream<Arguments> checks() {
        return Stream.of(
                Arguments.of("closing a channel while another thread selects on it or reads it",
                        (Check) ChannelContract::closeWhileSelectingAndReading),
                Arguments.of("an interrupt closes a blocked channel", (Check) ChannelContract::interruptWhileReading),
                Arguments.of("virtual threads blocked reading leave the carriers free",
                        (Check) ChannelContract::virtualReadersLeaveCarriersFree),
                Arguments.of("a non-blocking read returns 0 until data comes", (Check) ChannelContract::nonBlockingReads),
                Arguments.of("shutdowns end one direction each", (Check) ChannelContract::shutdowns),
                Arguments.of("a refused connection fails and closes the channel",
                        (Check) ChannelContract::refusedConnections),
                Arguments.of("wakeup or the timeout ends a select; an accept with nobody waiting gives null",
                        (Check) ChannelContract::wakeupAndEmptyAccept),
                Arguments.of("the socket() adapters show the channels' state and options, and stream",
                        (Check) ChannelContract::adapters));
    }

    /**
     * One channel is closed while another thread selects on it, another while a thread is blocked reading it: the
     * reader gets {@link AsynchronousCloseException}, the select ends, and the closed channel's key goes away.
     */
    static void closeWhileSelectingAndReading(RdmaSelectorProvider provider, ServerSocketChannel server)
            throws Exception {
        try (Selector selector = provider.openSelector(); SocketChannel selected = provider.openSocketChannel();
             SocketChannel blocked = provider.openSocketChannel()) {
            selected.connect(server.getLocalAddress());
            blocked.connect(server.getLocalAddress());
            SelectionKey key = selected.configureBlocking(false).register(selector, SelectionKey.OP_READ);
            CompletableFuture<Integer> selecting = CompletableFuture.supplyAsync(() -> {
                try {
                    return selector.select(2000);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            CompletableFuture<Throwable> reading = new CompletableFuture<>();
            Thread reader = Thread.ofPlatform().start(() -> reading.complete(
                    assertThrows(IOException.class, () -> blocked.read(ByteBuffer.allocate(1)))));
            awaitWaiting(reader);
            selected.close();
            blocked.close();
            assertEquals(AsynchronousCloseException.class, Echo.await(reading).getClass());
            reader.join();
            Echo.await(selecting);
            selector.selectNow();
            assertFalse(key.isValid());
            assertTrue(selector.keys().isEmpty(), "the closed channel's key is gone");
        }
    }

    /** A virtual thread blocked reading is interrupted: it gets {@link ClosedByInterruptException}, the channel closes. */
    static void interruptWhileReading(RdmaSelectorProvider provider, ServerSocketChannel server) throws Exception {
        try (SocketChannel client = provider.openSocketChannel()) {
            client.connect(server.getLocalAddress());
            CompletableFuture<Throwable> reading = new CompletableFuture<>();
            Thread reader = Thread.ofVirtual().start(() -> reading.complete(
                    assertThrows(IOException.class, () -> client.read(ByteBuffer.allocate(1)))));
            awaitWaiting(reader);
            reader.interrupt();
            assertEquals(ClosedByInterruptException.class, Echo.await(reading).getClass());
            assertFalse(client.isOpen());
        }
    }

    /**
     * More virtual threads than there are carriers block reading channels that get nothing, and another virtual
     * thread's echo still comes back: a wait that held its carrier in native code would hold them all, and the echo
     * would never run. The readers then end with {@link AsynchronousCloseException} as their channels close.
     */
    static void virtualReadersLeaveCarriersFree(RdmaSelectorProvider provider, ServerSocketChannel server)
            throws Exception {
        int carriers = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        List<SocketChannel> channels = new ArrayList<>();
        List<CompletableFuture<Throwable>> readings = new ArrayList<>();
        try {
            for (int i = 0; i <= carriers; i++) {
                SocketChannel client = provider.openSocketChannel();
                channels.add(client);
                client.connect(server.getLocalAddress());
                channels.add(server.accept());
                CompletableFuture<Throwable> reading = new CompletableFuture<>();
                readings.add(reading);
                awaitWaiting(Thread.ofVirtual().start(() -> {
                    try {
                        reading.completeExceptionally(
                                new AssertionError("the read returned " + client.read(ByteBuffer.allocate(1))));
                    } catch (Throwable t) {
                        reading.complete(t);
                    }
                }));
            }
            CompletableFuture<Long> echoed = Echo.serveBlocking(server);
            try (SocketChannel client = provider.openSocketChannel()) {
                client.connect(server.getLocalAddress());
                CompletableFuture<Void> roundTrip = new CompletableFuture<>();
                Thread.ofVirtual().start(() -> {
                    try {
                        Echo.roundTripBlocking(client, 4096);
                        roundTrip.complete(null);
                    } catch (Throwable t) {
                        roundTrip.completeExceptionally(t);
                    }
                });
                Echo.await(roundTrip);
            }
            Echo.await(echoed);
        } finally {
            for (SocketChannel channel : channels) {
                channel.close();
            }
        }
        for (CompletableFuture<Throwable> reading : readings) {
            assertEquals(AsynchronousCloseException.class, Echo.await(reading).getClass());
        }
    }

    /** A non-blocking read returns 0 while nothing came, the bytes once they come, and -1 after the peer closed. */
    static void nonBlockingReads(RdmaSelectorProvider provider, ServerSocketChannel server) throws Exception {
        try (SocketChannel client = provider.openSocketChannel()) {
            client.connect(server.getLocalAddress());
            try (SocketChannel peer = server.accept()) {
                client.configureBlocking(false);
                assertEquals(0, client.read(ByteBuffer.allocate(8)));
                peer.write(ByteBuffer.wrap(new byte[] {7}));
                ByteBuffer one = ByteBuffer.allocateDirect(1);
                while (client.read(one) == 0) {
                    Thread.onSpinWait();
                }
                assertEquals(7, one.get(0));
                peer.close();
                int n;
                while ((n = client.read(ByteBuffer.allocate(1))) == 0) {
                    Thread.onSpinWait();
                }
                assertEquals(-1, n, "the end of the stream after the peer closed");
            }
        }
    }

    /** Each shutdown ends one direction: the peer reads the end of the stream, the other direction still works. */
    static void shutdowns(RdmaSelectorProvider provider, ServerSocketChannel server) throws Exception {
        try (SocketChannel client = provider.openSocketChannel()) {
            client.connect(server.getLocalAddress());
            try (SocketChannel peer = server.accept()) {
                assertEquals(client.getLocalAddress(), peer.getRemoteAddress());
                client.shutdownOutput();
                assertEquals(-1, peer.read(ByteBuffer.allocate(8)), "the peer sees the end of the stream");
                assertThrows(ClosedChannelException.class, () -> client.write(ByteBuffer.allocate(1)));
                peer.write(ByteBuffer.wrap(new byte[] {42}));
                ByteBuffer one = ByteBuffer.allocate(1);
                assertEquals(1, client.read(one));
                assertEquals(42, one.get(0));
                client.shutdownInput();
                assertEquals(-1, client.read(ByteBuffer.allocate(1)));
            }
        }
    }

    /**
     * Closes {@code server}, then connects where it listened, blocking and not: each connection fails with a
     * {@link ConnectException} and closes its channel.
     */
    static void refusedConnections(RdmaSelectorProvider provider, ServerSocketChannel server) throws Exception {
        SocketAddress nobody = server.getLocalAddress();
        server.close();
        try (SocketChannel blocking = provider.openSocketChannel()) {
            assertThrows(ConnectException.class, () -> blocking.connect(nobody));
            assertFalse(blocking.isOpen());
        }
        try (SocketChannel client = provider.openSocketChannel()) {
            client.configureBlocking(false);
            // The refusal may come at once (an rsocket resolves and is rejected in rconnect) or later.
            assertThrows(ConnectException.class, () -> {
                if (!client.connect(nobody)) {
                    while (!client.finishConnect()) {
                        Thread.sleep(1);
                    }
                }
            });
            assertFalse(client.isOpen());
        }
    }

    /**
     * A select with nothing ready waits until a wakeup, or its time; a wakeup before a select ends it at once; an
     * accept with nobody waiting gives null.
     */
    static void wakeupAndEmptyAccept(RdmaSelectorProvider provider, ServerSocketChannel server) throws Exception {
        try (Selector selector = provider.openSelector()) {
            server.configureBlocking(false).register(selector, SelectionKey.OP_ACCEPT);
            assertNull(server.accept());
            CompletableFuture<Integer> selected = CompletableFuture.supplyAsync(() -> {
                try {
                    return selector.select();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(100);
            assertFalse(selected.isDone(), "nothing to select yet");
            selector.wakeup();
            assertEquals(0, Echo.await(selected));
            selector.wakeup();
            assertEquals(0, selector.select(), "a wakeup before a select ends it at once");
            long start = System.nanoTime();
            assertEquals(0, selector.select(50), "a timed select with nothing ready ends when its time is over");
            assertTrue(System.nanoTime() - start >= 50_000_000L, "not before");
        }
    }

    /**
     * What libraries that configure channels through their {@code socket()} see: addresses, state and options of the
     * channels, set through either; and bytes through the adapters' streams and accept.
     */
    static void adapters(RdmaSelectorProvider provider, ServerSocketChannel server) throws Exception {
        ServerSocket listening = server.socket();
        assertTrue(listening.isBound());
        assertEquals(server.getLocalAddress(), listening.getLocalSocketAddress());
        assertTrue(listening.getReuseAddress());
        try (SocketChannel client = provider.openSocketChannel()) {
            Socket socket = client.socket();
            assertFalse(socket.isConnected());
            socket.setTcpNoDelay(true);
            socket.connect(server.getLocalAddress());
            assertTrue(socket.isConnected());
            assertEquals(client.getRemoteAddress(), socket.getRemoteSocketAddress());
            assertEquals(client.getLocalAddress(), socket.getLocalSocketAddress());
            assertTrue(client.getOption(StandardSocketOptions.TCP_NODELAY), "set through the adapter");
            client.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            assertTrue(socket.getKeepAlive(), "set through the channel");
            assertTrue(socket.getSendBufferSize() > 0);
            assertThrows(SocketException.class, () -> socket.setSoLinger(true, 1));
            try (Socket peer = listening.accept()) {
                assertEquals(socket.getLocalSocketAddress(), peer.getRemoteSocketAddress());
                socket.getOutputStream().write(new byte[] {1, 2, 3});
                assertArrayEquals(new byte[] {1, 2, 3}, peer.getInputStream().readNBytes(3));
                socket.shutdownOutput();
                assertTrue(socket.isOutputShutdown());
                assertEquals(-1, peer.getInputStream().read(), "the end of the stream after shutdownOutput");
            }
            socket.close();
            assertTrue(socket.isClosed());
            assertFalse(client.isOpen());
        }
    }
}
