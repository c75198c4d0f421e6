package io.jrdma.benchmarks;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The command line the bench scripts' Java peers (JUCX, Netty) share, as {@code jrdma perf} takes it:
 * {@code (--bind ADDRESS | --server ADDRESS) [--port N] [--sizes SIZE:ITERS,...] [--warmup N] [--depth N]}, both
 * sides the same but the address.
 *
 * <pre>{@code
 * PeerOptions options = PeerOptions.parse(new String[] {"--server", "10.0.2.15", "--sizes", "64:20000"}, 1, 18517,
 *         1, Map.of());
 * int warmup = options.warmup(64);
 * }</pre>
 *
 * @param bind   the server's address, or null on the client
 * @param server the address the client connects to, or null on the server
 * @param port   the server's port
 * @param sizes  message sizes with their iterations, in order
 * @param warmup messages before each size's timed run (see {@link #warmup(int)})
 * @param depth  messages in flight
 */
public record PeerOptions(String bind, String server, int port, Map<Integer, Integer> sizes, int warmup, int depth) {
    /**
     * Reads {@code args} from index {@code from}; options of a peer's own go to {@code more}.
     *
     * @param port  the default port
     * @param depth the default depth
     * @throws IllegalArgumentException for an unknown option, or not exactly one of --bind and --server
     */
    public static PeerOptions parse(String[] args, int from, int port, int depth, Map<String, Consumer<String>> more) {
        String bind = null;
        String server = null;
        String sizes = "64:1000";
        int warmup = 20_000;
        for (int i = from; i + 1 < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--bind" -> bind = value;
                case "--server" -> server = value;
                case "--port" -> port = Integer.parseInt(value);
                case "--sizes" -> sizes = value;
                case "--warmup" -> warmup = Integer.parseInt(value);
                case "--depth" -> depth = Integer.parseInt(value);
                default -> {
                    Consumer<String> option = more.get(args[i]);
                    if (option == null) {
                        throw new IllegalArgumentException("unknown option " + args[i]);
                    }
                    option.accept(value);
                }
            }
        }
        if ((bind == null) == (server == null)) {
            throw new IllegalArgumentException("give --bind (server) or --server (client)");
        }
        return new PeerOptions(bind, server, port, sizes(sizes), warmup, depth);
    }

    private static Map<Integer, Integer> sizes(String list) {
        Map<Integer, Integer> sizes = new LinkedHashMap<>();
        for (String item : list.split(",")) {
            String[] parts = item.split(":");
            if (parts.length != 2) {
                throw new IllegalArgumentException("--sizes takes SIZE:ITERS items, not '" + item + "'");
            }
            sizes.put(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
        }
        return sizes;
    }

    /** Whether this side is the client. */
    public boolean client() {
        return server != null;
    }

    /** The server's address: the one the server binds and the client connects to. */
    public InetSocketAddress address() {
        return new InetSocketAddress(client() ? server : bind, port);
    }

    /** The warm-up of {@code size}: {@link #warmup()} messages, at most 64 MiB of them (as jrdma perf's). */
    public int warmup(int size) {
        return (int) Math.min(warmup, Math.max(1, (64L << 20) / size));
    }
}
