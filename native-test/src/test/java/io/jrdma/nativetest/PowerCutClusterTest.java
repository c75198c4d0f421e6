package io.jrdma.nativetest;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.jrdma.nativetest.StreamAcrossNodesClusterTest.connect;
import static io.jrdma.nativetest.StreamAcrossNodesClusterTest.startEcho;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The peer's power cut mid-stream (its qemu killed: no disconnect, no FIN, nothing): the survivor's stream fails with
 * RETRY_EXC_ERR at its next send and everything closes. Last of its cluster, since the peer is gone after it.
 */
@ClusterTest
@Order(Integer.MAX_VALUE)
class PowerCutClusterTest {
    @Test
    void theSurvivorOfAPowerCutLearnsOfItAndClosesEverything() throws Exception {
        ClusterNode peer = ClusterNode.peer();
        ConnectionOptions options = NetworkFaultsClusterTest.QUICK;
        startEcho(peer, 7390, options);
        RdmaConnection c = connect(peer, 7390, options);
        EchoStream stream = new EchoStream(c, options.maxMessageSize(), 5);
        stream.run(1 << 20);
        CompletableFuture<Void> streaming = CompletableFuture.runAsync(() -> {
            try {
                stream.runUntilFailure(Duration.ofSeconds(10));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(500);
        peer.powerOff();
        long cut = System.nanoTime();
        Throwable failure = assertThrows(ExecutionException.class,
                () -> streaming.get(120, TimeUnit.SECONDS)).getCause().getCause();
        double seconds = (System.nanoTime() - cut) / 1e9;
        System.out.printf(Locale.ROOT, "power cut: detected after %.1f s: %s%n", seconds, failure);
        RdmaException e = assertInstanceOf(RdmaException.class, failure);
        assertEquals("RETRY_EXC_ERR", e.errnoName(), e.getMessage());
        long closing = System.nanoTime();
        c.close();
        System.out.printf(Locale.ROOT, "power cut: the connection closed in %.1f s%n", (System.nanoTime() - closing) / 1e9);
    }
}
