package io.jrdma.examples;

import io.jrdma.rdmacm.ConnectionClosedException;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * An echo server and its client in one process, connected through the RDMA connection manager by IP address, like
 * sockets: the client sends messages, the server sends each one back, the client checks it.
 *
 * <p>Argument: an IP address of an RDMA device (on Soft-RoCE, that of the network interface it runs on).
 */
public final class CmEcho {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int MESSAGES = 10;

    private CmEcho() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress address = InetAddress.getByName(args[0]);
        // Port 0: the connection manager picks a free one, which the listener then tells.
        try (RdmaListener listener = RdmaListener.bind(new InetSocketAddress(address, 0),
                ConnectionOptions.defaults())) {
            CompletableFuture<Integer> echoed = CompletableFuture.supplyAsync(() -> echo(listener));
            try (RdmaConnection client = RdmaConnection.connect(listener.localAddress(), ConnectionOptions.defaults(),
                    TIMEOUT)) {
                for (int i = 0; i < MESSAGES; i++) {
                    byte[] message = ("message " + i).getBytes(StandardCharsets.UTF_8);
                    client.send(message);
                    byte[] answer = client.receive(TIMEOUT);
                    if (!Arrays.equals(message, answer)) {
                        throw new IllegalStateException("sent '" + new String(message, StandardCharsets.UTF_8)
                                + "', the echo was '" + (answer == null ? null
                                : new String(answer, StandardCharsets.UTF_8)) + "'");
                    }
                }
            }
            InetSocketAddress server = listener.localAddress();
            System.out.printf("%d messages echoed by the server at %s port %d%n", echoed.join(),
                    server.getAddress().getHostAddress(), server.getPort());
        }
    }

    /** Accepts one client and sends back what it sends, until it closes the connection; returns how many. */
    private static int echo(RdmaListener listener) {
        try (RdmaConnection server = listener.accept(TIMEOUT)) {
            if (server == null) {
                throw new IllegalStateException("no client within " + TIMEOUT);
            }
            for (int count = 0; ; count++) {
                byte[] message;
                try {
                    message = server.receive(TIMEOUT);
                } catch (ConnectionClosedException closed) {
                    return count;
                }
                if (message == null) {
                    throw new IllegalStateException("the client went quiet");
                }
                server.send(message);
            }
        } catch (Exception e) {
            throw new IllegalStateException("server: " + e.getMessage(), e);
        }
    }
}
