package io.jrdma.tool.perf;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.rdmacm.ConnectionClosedException;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One side of {@code jrdma endpoint-perf lat --api connection}: the ping-pong through {@link RdmaConnection}'s
 * blocking {@code send} and {@code receive} on both sides, each call waiting for its completion, as a newcomer
 * writes it. The server echoes every message until the client closes; the client measures as {@link EndpointPerf}
 * does and prints the same results.
 */
final class ConnectionPerf extends EndpointPerfSide {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    ConnectionPerf(EndpointPerfOptions options, PrintStream out) {
        super(options, out);
    }

    /** Messages up to the largest size of the run, as the endpoint's receive buffers are. */
    private ConnectionOptions connectionOptions() {
        return ConnectionOptions.defaults().withMaxMessageSize(options.messageSize());
    }

    @Override
    void server() throws Exception {
        InetAddress address = InetAddress.getByName(options.bind());
        try (RdmaListener listener = RdmaListener.bind(new InetSocketAddress(address, options.port()),
                connectionOptions())) {
            if (!options.json()) {
                out.println("endpoint-perf: listening on " + listener.localAddress());
            }
            RdmaConnection connection = listener.accept(TIMEOUT);
            if (connection == null) {
                throw new IOException("no client connected within " + TIMEOUT.toSeconds() + " s");
            }
            try (connection) {
                while (true) {
                    connection.send(receive(connection));
                }
            } catch (ConnectionClosedException e) {
                // The client is done: it closes once it has measured every size.
            }
        }
    }

    @Override
    void client() throws Exception {
        InetAddress server = InetAddress.getByName(options.server());
        List<PerfResult> results = new ArrayList<>();
        try (RdmaConnection connection = RdmaConnection.connect(new InetSocketAddress(server, options.port()),
                connectionOptions(), TIMEOUT)) {
            for (int size : options.sizes()) {
                byte[] message = new byte[size];
                results.add(latency(size, (n, stamps) -> pingPong(connection, message, n, stamps)));
            }
        }
        EndpointPerf.print(options, out, results);
    }

    /** {@code n} round trips of {@code message}, the start of each stamped into {@code stamps} (when long enough). */
    private static void pingPong(RdmaConnection connection, byte[] message, int n, long[] stamps)
            throws IOException, InterruptedException {
        boolean stamp = stamps.length >= n;
        for (int i = 0; i < n; i++) {
            if (stamp) {
                stamps[i] = System.nanoTime();
            }
            connection.send(message);
            byte[] echo = receive(connection);
            if (echo.length != message.length) {
                throw new IOException("an echo of " + echo.length + " bytes for a message of " + message.length);
            }
        }
    }

    private static byte[] receive(RdmaConnection connection) throws RdmaException, InterruptedException,
            IOException {
        byte[] m = connection.receive(TIMEOUT);
        if (m == null) {
            throw new IOException("no message from the peer within " + TIMEOUT.toSeconds() + " s");
        }
        return m;
    }
}
