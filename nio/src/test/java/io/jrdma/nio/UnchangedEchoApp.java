package io.jrdma.nio;

import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;

/**
 * An application that names nothing of jrdma: {@code java.nio}'s own factories only. {@link SystemProperties} runs it
 * in a child JVM with the provider switched on by system properties; it prints each channel as the provider
 * describes it (with its kind) and ends with status 0 if both echoes came back whole.
 */
final class UnchangedEchoApp {
    private UnchangedEchoApp() {
    }

    /**
     * Echoes through channels bound to {@code args[0]}: once in blocking mode, once on a selector.
     *
     * @param args the address to bind the servers to
     * @throws Exception if an echo failed
     */
    public static void main(String[] args) throws Exception {
        InetSocketAddress where = new InetSocketAddress(args[0], 0);
        System.out.println("provider " + SelectorProvider.provider().getClass().getName());
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(where)) {
            var echoed = Echo.serveBlocking(server);
            try (SocketChannel client = SocketChannel.open(server.getLocalAddress())) {
                System.out.println("blocking " + client + " receive buffer "
                        + client.getOption(StandardSocketOptions.SO_RCVBUF));
                Echo.roundTripBlocking(client, 200_000);
            }
            Echo.await(echoed);
        }
        try (Selector selector = Selector.open(); ServerSocketChannel server = ServerSocketChannel.open().bind(where);
             SocketChannel client = SocketChannel.open()) {
            System.out.println("selecting " + server);
            Echo.roundTripSelecting(selector, List.of(server), List.of(client), 200_000);
        }
        System.out.println("echoes whole");
    }
}
