package io.jrdma.nativetest.cluster;

import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link RdmaConnection} between two nodes: a long stream, every byte CRC-checked on both sides and echoed back. */
@ClusterTest
class StreamAcrossNodesClusterTest {
    private static final ConnectionOptions OPTIONS = ConnectionOptions.defaults().withMaxMessageSize(64 << 10);

    @Test
    void everyByteOfALongStreamArrivesIntactAndComesBack() throws Exception {
        ClusterNode peer = ClusterNode.peer();
        try (ClusterNode.Remote echo = startEcho(peer, 7301, OPTIONS);
             RdmaConnection c = connect(echo, peer, 7301, OPTIONS)) {
            StreamResult sent = new EchoStream(c, OPTIONS.maxMessageSize(), 1).run(16L << 20);
            c.close();
            assertEquals(sent, StreamResult.parse(echo.succeeded(Duration.ofSeconds(60))),
                    "what the far side received, as this side sent it");
        }
    }

    /** An {@link EchoTask} on {@code node}, on its data address, set up with {@code options}. */
    static ClusterNode.Remote startEcho(ClusterNode node, int port, ConnectionOptions options) throws Exception {
        return node.call(EchoTask.class, node.dataAddress().getHostAddress(), Integer.toString(port),
                Integer.toString(options.maxMessageSize()), Integer.toString(options.ackTimeout()),
                Integer.toString(options.retryCount()));
    }

    /** Connects to {@code echo} (started by {@link #startEcho}) on {@code node}, once it listens. */
    static RdmaConnection connect(ClusterNode.Remote echo, ClusterNode node, int port, ConnectionOptions options)
            throws Exception {
        InetSocketAddress server = new InetSocketAddress(node.dataAddress(), port);
        return echo.whenListening(Duration.ofSeconds(120),
                () -> RdmaConnection.connect(server, options, Duration.ofSeconds(60)));
    }
}
