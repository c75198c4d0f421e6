package io.jrdma.nio;

import java.net.SocketAddress;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Many non-blocking connects at once to one server channel, whose connections the server accepts on threads of its
 * own, each connection then carrying a checked echo: what an HTTP client does when it opens a pool of connections
 * at once. Over rsockets, more than three connections at once is what hung librdmacm before rdma-core 53 (see
 * {@link ConnectService}).
 */
final class ConcurrentConnects {
    /** Connections at once: several times the four that librdmacm's connection service first has room for. */
    static final int CONNECTIONS = 12;
    private static final int BYTES = 100_000;

    private ConcurrentConnects() {
    }

    /** Every connect from one selector thread, as the event loops of Netty and Jetty make them. */
    static void fromOneSelector(RdmaSelectorProvider provider, ServerSocketChannel server) throws Exception {
        List<CompletableFuture<Long>> echoed = serve(server);
        List<SocketChannel> clients = new ArrayList<>();
        try (Selector selector = provider.openSelector()) {
            for (int i = 0; i < CONNECTIONS; i++) {
                clients.add(provider.openSocketChannel());
            }
            Echo.roundTripSelecting(selector, List.of(), List.of(server.getLocalAddress()), clients, BYTES);
        } finally {
            for (SocketChannel client : clients) {
                client.close();
            }
        }
        checkEchoed(echoed);
    }

    /** Each connect from a thread and selector of its own, the threads starting together. */
    static void fromSeveralThreads(RdmaSelectorProvider provider, ServerSocketChannel server) throws Exception {
        List<CompletableFuture<Long>> echoed = serve(server);
        SocketAddress target = server.getLocalAddress();
        CyclicBarrier together = new CyclicBarrier(CONNECTIONS);
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            clients.add(done);
            Thread.ofPlatform().daemon().start(() -> {
                try (Selector selector = provider.openSelector(); SocketChannel client = provider.openSocketChannel()) {
                    together.await();
                    Echo.roundTripSelecting(selector, List.of(), List.of(target), List.of(client), BYTES);
                    done.complete(null);
                } catch (Throwable t) {
                    done.completeExceptionally(t);
                }
            });
        }
        for (CompletableFuture<Void> done : clients) {
            Echo.await(done);
        }
        checkEchoed(echoed);
    }

    /** A thread per connection that accepts one and echoes it, all waiting in accept at once. */
    private static List<CompletableFuture<Long>> serve(ServerSocketChannel server) {
        List<CompletableFuture<Long>> echoed = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            echoed.add(Echo.serveBlocking(server));
        }
        return echoed;
    }

    private static void checkEchoed(List<CompletableFuture<Long>> echoed) throws Exception {
        for (CompletableFuture<Long> bytes : echoed) {
            assertEquals(BYTES, Echo.await(bytes));
        }
    }
}
