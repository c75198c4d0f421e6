package io.jrdma.nativetest;

import io.jrdma.rdmacm.CmEventException;
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
             RdmaConnection c = connect(peer, 7301, OPTIONS)) {
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

    /** Connects to the echo on {@code node}, retrying while it is not yet listening (the CM rejects then). */
    static RdmaConnection connect(ClusterNode node, int port, ConnectionOptions options) throws Exception {
        InetSocketAddress server = new InetSocketAddress(node.dataAddress(), port);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return RdmaConnection.connect(server, options, Duration.ofSeconds(20));
            } catch (CmEventException notYetListening) {
                if (System.nanoTime() > deadline) {
                    throw notYetListening;
                }
                Thread.sleep(500);
            }
        }
    }
}
