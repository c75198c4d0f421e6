package io.jrdma.nio;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Echo round trips through the provider's channels, with every byte checked: the same code runs over TCP in the
 * unit tier and over RDMA on the device.
 */
final class Echo {
    /** The HTTP tests' body sizes: empty, tiny, around a buffer's size, and several rsocket buffers' worth. */
    static final int[] BODY_SIZES = {0, 1, 1000, 65_537, 1 << 20, (4 << 20) - 3};
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(120);

    private Echo() {
    }

    /** The byte at {@code index} of the stream a client sends: no period of 256, so a lost or repeated run shows. */
    static byte patternByte(long index) {
        return (byte) (index * 131 + (index >>> 9));
    }

    /** {@code size} bytes of the pattern from {@code from} on. */
    static byte[] pattern(int size, long from) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = patternByte(from + i);
        }
        return bytes;
    }

    /** The SHA-256 of {@code bytes} in hex, as the HTTP tests' servers send it in a header. */
    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Serves one connection in blocking mode on a platform thread: echoes until end of stream; the bytes echoed. */
    static CompletableFuture<Long> serveBlocking(ServerSocketChannel server) {
        CompletableFuture<Long> echoed = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (SocketChannel peer = server.accept()) {
                ByteBuffer buffer = ByteBuffer.allocateDirect(8192);
                long total = 0;
                while (peer.read(buffer) >= 0) {
                    buffer.flip();
                    total += buffer.remaining();
                    while (buffer.hasRemaining()) {
                        peer.write(buffer);
                    }
                    buffer.clear();
                }
                echoed.complete(total);
            } catch (Throwable t) {
                echoed.completeExceptionally(t);
            }
        });
        return echoed;
    }

    /**
     * A blocking round trip of {@code total} bytes on a connected channel: a virtual thread writes them with gather
     * writes (a heap and a direct buffer) and shuts the output down; this thread reads them back with scatter reads
     * (a direct and a heap buffer) and checks each byte.
     */
    static void roundTripBlocking(SocketChannel channel, int total) throws Exception {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                long index = 0;
                while (index < total) {
                    ByteBuffer heap = ByteBuffer.allocate((int) Math.min(3000, total - index));
                    fill(heap, index);
                    ByteBuffer direct = ByteBuffer.allocateDirect((int) Math.min(5000, total - index - heap.limit()));
                    fill(direct, index + heap.limit());
                    ByteBuffer[] gather = {heap, direct};
                    while (heap.hasRemaining() || direct.hasRemaining()) {
                        channel.write(gather);
                    }
                    index += heap.limit() + direct.limit();
                }
                channel.shutdownOutput();
                sent.complete(null);
            } catch (Throwable t) {
                sent.completeExceptionally(t);
            }
        });
        ByteBuffer direct = ByteBuffer.allocateDirect(1500);
        ByteBuffer heap = ByteBuffer.allocate(2500);
        ByteBuffer[] scatter = {direct, heap};
        long received = 0;
        for (long n; (n = channel.read(scatter)) >= 0; ) {
            assertTrue(n > 0, "a blocking read returned 0");
            received = check(direct.flip(), received);
            received = check(heap.flip(), received);
            direct.clear();
            heap.clear();
        }
        assertEquals(total, received, "bytes echoed back");
        sent.get(10, TimeUnit.SECONDS);
    }

    /** Puts the pattern from {@code from} into {@code buffer} up to its limit. */
    static void fill(ByteBuffer buffer, long from) {
        for (int i = 0; i < buffer.limit(); i++) {
            buffer.put(i, patternByte(from + i));
        }
    }

    /** Checks {@code buffer}'s bytes are the pattern from {@code index}; the index after them. */
    static long check(ByteBuffer buffer, long index) {
        while (buffer.hasRemaining()) {
            byte b = buffer.get();
            if (b != patternByte(index)) {
                fail("byte " + index + " is " + b + ", not " + patternByte(index));
            }
            index++;
        }
        return index;
    }

    /**
     * On one selector, in non-blocking mode: the servers accept and echo, and client i connects to server
     * i modulo their number, writes
     * {@code total} bytes and reads them back, each checked. Returns when every client has all its bytes back.
     */
    static void roundTripSelecting(Selector selector, List<ServerSocketChannel> servers, List<SocketChannel> clients,
                                   int total) throws IOException {
        List<SocketAddress> targets = new ArrayList<>();
        for (ServerSocketChannel server : servers) {
            targets.add(server.getLocalAddress());
        }
        roundTripSelecting(selector, servers, targets, clients, total);
    }

    /**
     * As {@link #roundTripSelecting(Selector, List, List, int)}, but client i connects to target i modulo their
     * number: servers of the selector, or (with {@code servers} empty) ones served elsewhere.
     */
    static void roundTripSelecting(Selector selector, List<ServerSocketChannel> servers, List<SocketAddress> targets,
                                   List<SocketChannel> clients, int total) throws IOException {
        for (ServerSocketChannel server : servers) {
            server.configureBlocking(false).register(selector, SelectionKey.OP_ACCEPT);
        }
        for (int i = 0; i < clients.size(); i++) {
            SocketChannel client = clients.get(i);
            client.configureBlocking(false);
            boolean connected = client.connect(targets.get(i % targets.size()));
            client.register(selector, connected ? SelectionKey.OP_READ | SelectionKey.OP_WRITE
                    : SelectionKey.OP_CONNECT, new Client(total));
        }
        int done = 0;
        long start = System.nanoTime();
        while (done < clients.size()) {
            if (System.nanoTime() - start > DEADLINE_NANOS) {
                fail("selecting echo: " + done + " of " + clients.size() + " clients done in time");
            }
            selector.select(1000);
            for (SelectionKey key : selector.selectedKeys()) {
                if (key.isAcceptable()) {
                    SocketChannel peer = ((ServerSocketChannel) key.channel()).accept();
                    if (peer != null) {
                        peer.configureBlocking(false).register(selector, SelectionKey.OP_READ,
                                ByteBuffer.allocateDirect(4096));
                    }
                } else if (key.attachment() instanceof Client client) {
                    done += client.step(key) ? 1 : 0;
                } else {
                    echo(key);
                }
            }
            selector.selectedKeys().clear();
        }
    }

    /** A server side connection's turn: read what came, write it back, and wait for room if it did not all go. */
    static void echo(SelectionKey key) throws IOException {
        SocketChannel peer = (SocketChannel) key.channel();
        ByteBuffer buffer = (ByteBuffer) key.attachment();
        if (key.isReadable() && peer.read(buffer) < 0) {
            peer.close();
            return;
        }
        buffer.flip();
        peer.write(buffer);
        key.interestOps(buffer.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
        buffer.compact();
    }

    /** A client's progress: bytes sent and bytes back. */
    private static final class Client {
        private final int total;
        private final ByteBuffer out = ByteBuffer.allocate(7000);
        private final ByteBuffer in = ByteBuffer.allocateDirect(3000);
        private long sent;
        private long received;

        Client(int total) {
            this.total = total;
            out.limit(0);
        }

        /** One readiness of the client's key; true when all bytes came back (the channel is then closed). */
        boolean step(SelectionKey key) throws IOException {
            SocketChannel channel = (SocketChannel) key.channel();
            if (key.isConnectable()) {
                assertTrue(channel.finishConnect(), "finishConnect after OP_CONNECT");
                key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                return false;
            }
            if (key.isWritable()) {
                if (!out.hasRemaining()) {
                    out.clear().limit((int) Math.min(out.capacity(), total - sent));
                    fill(out, sent);
                    sent += out.limit();
                }
                channel.write(out);
                if (sent == total && !out.hasRemaining()) {
                    key.interestOps(SelectionKey.OP_READ);
                }
            }
            if (key.isReadable()) {
                int n = channel.read(in);
                assertTrue(n >= 0, "end of stream after " + received + " of " + total + " bytes");
                received = check(in.flip(), received);
                in.clear();
                if (received == total) {
                    channel.close();
                    return true;
                }
            }
            return false;
        }
    }

    /** The value of a future a test waits for, with its failure's cause as the failure. */
    static <T> T await(CompletableFuture<T> future) throws Exception {
        try {
            return future.get(DEADLINE_NANOS, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            throw new AssertionError("no result in time", e);
        }
    }
}
