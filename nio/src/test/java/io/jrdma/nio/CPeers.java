package io.jrdma.nio;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** librdmacm's C example programs (rstream, riostream) against a Java peer on the provider's RDMA channels. */
final class CPeers {
    private CPeers() {
    }

    /** The Java side of one connection. */
    interface Side {
        void run(SocketChannel channel) throws Exception;
    }

    /** Options to set on a channel before it connects. */
    interface ChannelOptions {
        void set(SocketChannel channel) throws IOException;
    }

    /** {@code tool}'s test of ITERATIONS x COUNT transfers of SIZE bytes with verification ({@code -T v}). */
    static List<String> streamTest(String tool, int iterations, int count, int size) {
        return List.of(tool, "-I", "" + iterations, "-C", "" + count, "-S", "" + size, "-T", "v");
    }

    /**
     * Runs {@code command} as a client ({@code -s IP -p PORT}) of {@code server}, an RDMA server channel on
     * {@code ip} whose one connection {@code side} serves; both must succeed.
     */
    static void cClient(List<String> command, ServerSocketChannel server, String ip, Side side) throws Exception {
        int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
        CompletableFuture<Void> served = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (SocketChannel peer = server.accept()) {
                assertTrue(RdmaChannels.isRdma(peer));
                side.run(peer);
                served.complete(null);
            } catch (Throwable t) {
                served.completeExceptionally(t);
            }
        });
        Process client = new ProcessBuilder(with(command, "-s", ip, "-p", "" + port)).redirectErrorStream(true).start();
        try {
            assertTrue(client.waitFor(120, TimeUnit.SECONDS), command.getFirst() + " ends");
            String output = new String(client.getInputStream().readAllBytes());
            assertEquals(0, client.exitValue(), output);
            Echo.await(served);
        } finally {
            client.destroyForcibly();   // a C client waiting for data that never comes waits for ever
        }
    }

    /**
     * Starts {@code command} as a server ({@code -b IP -p PORT}), connects an RDMA channel to it with {@code options}
     * set, and runs {@code side} on it; both must succeed.
     */
    static void cServer(List<String> command, String ip, int port, ChannelOptions options, Side side)
            throws Exception {
        Process server = new ProcessBuilder(with(command, "-b", ip, "-p", "" + port)).redirectErrorStream(true).start();
        try {
            RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("rdma connect " + ip + " *", false);
            try (SocketChannel client = connectWhenListening(provider, new InetSocketAddress(ip, port), options)) {
                assertTrue(RdmaChannels.isRdma(client));
                side.run(client);
            } catch (Exception | AssertionError e) {
                server.destroyForcibly().waitFor();
                throw new AssertionError(e.getMessage() + "; " + command.getFirst() + " said: "
                        + new String(server.getInputStream().readAllBytes()), e);
            }
            assertTrue(server.waitFor(60, TimeUnit.SECONDS), command.getFirst() + " ends after the client");
            String output = new String(server.getInputStream().readAllBytes());
            assertEquals(0, server.exitValue(), output);
        } finally {
            server.destroyForcibly();
        }
    }

    /** A connected channel to {@code address}, once the server there listens (it is starting up). */
    static SocketChannel connectWhenListening(RdmaSelectorProvider provider, InetSocketAddress address,
                                              ChannelOptions options) throws IOException, InterruptedException {
        for (int attempt = 0; attempt < 100; attempt++) {
            SocketChannel channel = provider.openSocketChannel();
            try {
                options.set(channel);
                channel.connect(address);
                return channel;
            } catch (ConnectException notYet) {
                channel.close();
                Thread.sleep(200);
            }
        }
        throw new AssertionError("nothing listens on " + address);
    }

    private static List<String> with(List<String> command, String... more) {
        List<String> all = new ArrayList<>(command);
        all.addAll(List.of(more));
        return all;
    }
}
