package io.jrdma.nio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Closes and interrupts that race with other threads' selects and reads: over TCP in the unit tier, RDMA on the device. */
final class Concurrency {
    private Concurrency() {
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
            Thread.sleep(100);
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
            Thread.sleep(100);
            reader.interrupt();
            assertEquals(ClosedByInterruptException.class, Echo.await(reading).getClass());
            assertFalse(client.isOpen());
        }
    }
}
