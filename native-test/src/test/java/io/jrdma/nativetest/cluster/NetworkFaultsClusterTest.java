package io.jrdma.nativetest.cluster;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.nativetest.Command;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.jrdma.nativetest.cluster.StreamAcrossNodesClusterTest.connect;
import static io.jrdma.nativetest.cluster.StreamAcrossNodesClusterTest.startEcho;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults on the data link between two nodes, under an {@link RdmaConnection} stream: an impaired link (tc netem on
 * both nodes' eth0) loses nothing and corrupts nothing, the transport retransmits; a link down for longer than the
 * retry budget ends in RETRY_EXC_ERR and a broken connection, and a new connection works once it is back.
 */
@ClusterTest
class NetworkFaultsClusterTest {
    private static final Duration STEP = Duration.ofSeconds(30);
    /**
     * Small messages, each a few packets, and an ACK timeout of 134 ms: a retransmission costs little, so a lossy
     * stream ends in seconds, and a dead link is noticed after about 7 x 134 ms.
     */
    static final ConnectionOptions QUICK = ConnectionOptions.defaults().withMaxMessageSize(4096).withRetries(15, 6);

    @ParameterizedTest(name = "netem {0}")
    @ValueSource(strings = {"loss 1%", "loss 5%", "loss 2% duplicate 2% reorder 10% 50% delay 2ms"})
    void aStreamOverAnImpairedLinkArrivesIntactAndTheRetransmissionsAreCounted(String netem) throws Exception {
        ClusterNode peer = ClusterNode.peer();
        int port = 7310 + Math.abs(netem.hashCode() % 50);
        try (ClusterNode.Remote echo = startEcho(peer, port, QUICK);
             RdmaConnection c = connect(echo, peer, port, QUICK)) {
            Map<String, Long> localBefore = RxeCounters.local();
            Map<String, Long> peerBefore = RxeCounters.on(peer);
            StreamResult sent;
            // The stream runs over the impaired link; the connection manager's handshakes, whose lost messages cost
            // seconds each to retry, run over a whole one (a disconnect once took over a minute at 5% loss).
            impair(peer, netem);
            try {
                sent = new EchoStream(c, QUICK.maxMessageSize(), netem.hashCode()).run(4L << 20);
            } finally {
                repair(peer);
            }
            c.close();
            assertEquals(sent, StreamResult.parse(echo.succeeded(Duration.ofSeconds(60))),
                    "what the far side received, as this side sent it");
            Map<String, Long> here = RxeCounters.growth(localBefore, RxeCounters.local());
            Map<String, Long> there = RxeCounters.growth(peerBefore, RxeCounters.on(peer));
            System.out.printf(Locale.ROOT, "netem %s: %s intact both ways; rxe counters grew here %s, there %s%n",
                    netem, sent, here, there);
            // Over thousands of packets each way, a loss of 1% or more is certain to cost retransmissions.
            assertTrue(RxeCounters.retransmissions(here) + RxeCounters.retransmissions(there) > 0,
                    "retransmissions counted: " + here + " " + there);
        }
    }

    @Test
    void aLinkDownLongerThanTheRetryBudgetEndsInRetryExceededAndANewConnectionWorksOnceItIsBack() throws Exception {
        ClusterNode peer = ClusterNode.peer();
        long cut;
        RdmaException failure;
        try (ClusterNode.Remote echo = startEcho(peer, 7370, QUICK);
             RdmaConnection c = connect(echo, peer, 7370, QUICK)) {
            EchoStream stream = new EchoStream(c, QUICK.maxMessageSize(), 3);
            stream.run(1 << 20);
            peer.run(STEP, "ip", "link", "set", "eth0", "down");
            cut = System.nanoTime();
            try {
                failure = assertThrows(RdmaException.class, () -> stream.run(Long.MAX_VALUE),
                        "a stream over a dead link fails");
            } finally {
                peer.run(STEP, "ip", "link", "set", "eth0", "up");
            }
            double seconds = (System.nanoTime() - cut) / 1e9;
            System.out.printf(Locale.ROOT, "link down: detected after %.1f s: %s%n", seconds, failure.getMessage());
            assertEquals("RETRY_EXC_ERR", failure.errnoName(), failure.getMessage());
            assertTrue(failure.getMessage().contains("broken"), failure.getMessage());
            echo.close();
        }
        awaitPortActive(peer);
        try (ClusterNode.Remote echo = startEcho(peer, 7371, QUICK);
             RdmaConnection c = connect(echo, peer, 7371, QUICK)) {
            StreamResult sent = new EchoStream(c, QUICK.maxMessageSize(), 4).run(1 << 20);
            c.close();
            assertEquals(sent, StreamResult.parse(echo.succeeded(Duration.ofSeconds(60))));
        }
    }

    /** Adds {@code netem} to both nodes' data links, both directions impaired. */
    static void impair(ClusterNode peer, String netem) throws Exception {
        List<String> add = new ArrayList<>(List.of("tc", "qdisc", "replace", "dev", "eth0", "root", "netem"));
        add.addAll(List.of(netem.split(" ")));
        Command.run(Path.of("/"), add, STEP);
        peer.run(STEP, add.toArray(String[]::new));
    }

    static void repair(ClusterNode peer) throws Exception {
        List<String> del = List.of("tc", "qdisc", "del", "dev", "eth0", "root");
        Command.run(Path.of("/"), del, STEP);
        peer.run(STEP, del.toArray(String[]::new));
    }

    private static void awaitPortActive(ClusterNode node) throws Exception {
        node.run(STEP, "sh", "-c", "until grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state; do sleep 0.2; done");
    }
}
