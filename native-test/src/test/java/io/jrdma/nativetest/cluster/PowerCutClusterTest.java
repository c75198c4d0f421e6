package io.jrdma.nativetest.cluster;

import io.jrdma.endpoint.Buffer;
import io.jrdma.endpoint.Endpoint;
import io.jrdma.endpoint.EndpointException;
import io.jrdma.endpoint.Worker;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.jrdma.nativetest.cluster.StreamAcrossNodesClusterTest.connect;
import static io.jrdma.nativetest.cluster.StreamAcrossNodesClusterTest.startEcho;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The peer's power cut (its qemu killed: no disconnect, no FIN, nothing): the survivor's stream fails with
 * RETRY_EXC_ERR at its next send and everything closes, and an idle endpoint to the same peer learns of it from its
 * keepalive. Last of its cluster, since the peer is gone after it.
 */
@ClusterTest
@Order(Integer.MAX_VALUE)
class PowerCutClusterTest {
    @Test
    void theSurvivorOfAPowerCutLearnsOfItAndClosesEverything() throws Exception {
        ClusterNode peer = ClusterNode.peer();
        // An endpoint that exchanged one message and then idles.
        ClusterNode.Remote idleEcho = EndpointsAcrossNodesClusterTest.startEcho(peer, 7391);
        Worker worker = Worker.start(ClusterNode.localDataAddress(), EndpointsAcrossNodesClusterTest.OPTIONS,
                "idle-worker");
        byte[] one = {42};
        EndpointsAcrossNodesClusterTest.Checker idle = new EndpointsAcrossNodesClusterTest.Checker(
                new long[] {EndpointsAcrossNodesClusterTest.crc(MemorySegment.ofArray(one))});
        Endpoint ep = EndpointsAcrossNodesClusterTest.connect(worker, idleEcho, peer, 7391, idle);
        try (Buffer b = worker.buffers().allocate(1)) {
            b.segment().set(ValueLayout.JAVA_BYTE, 0, one[0]);
            ep.send(b.region(), b.offset(), 1).get(60, TimeUnit.SECONDS);
        }
        idle.all.get(60, TimeUnit.SECONDS);

        ConnectionOptions options = NetworkFaultsClusterTest.QUICK;
        ClusterNode.Remote echo = startEcho(peer, 7390, options);
        RdmaConnection c = connect(echo, peer, 7390, options);
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

        Throwable keepalive = idle.broken.get(120, TimeUnit.SECONDS);
        System.out.printf(Locale.ROOT, "power cut: the idle endpoint's keepalive found it after %.1f s: %s%n",
                (System.nanoTime() - cut) / 1e9, keepalive);
        EndpointException broken = assertInstanceOf(EndpointException.class, keepalive);
        assertEquals(WcStatus.RETRY_EXC_ERR, broken.status(), broken.getMessage());
        ep.closeFuture().get(60, TimeUnit.SECONDS);
        worker.close();
    }
}
