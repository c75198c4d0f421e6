package io.jrdma.nativetest.cluster;

import io.jrdma.ibverbs.Context;
import io.jrdma.nativetest.interop.PingPongInteropDeviceTest;
import io.jrdma.nativetest.interop.PingPongInteropDeviceTest.Exchange;
import io.jrdma.nativetest.support.ToolRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.jrdma.nativetest.interop.PingPongInteropDeviceTest.args;
import static io.jrdma.nativetest.interop.PingPongInteropDeviceTest.awaitListening;
import static io.jrdma.nativetest.interop.PingPongInteropDeviceTest.check;
import static io.jrdma.nativetest.interop.PingPongInteropDeviceTest.command;
import static io.jrdma.nativetest.interop.PingPongInteropDeviceTest.jrdma;
import static io.jrdma.nativetest.interop.PingPongInteropDeviceTest.withServer;

/**
 * {@code jrdma pingpong} on this node against rdma-core's {@code ibv_*_pingpong} on the other, each variant in both
 * roles, with data validation: the same exchanges as {@link PingPongInteropDeviceTest}, but the RoCE v2 packets
 * cross a network and the GIDs, MACs and addresses on each side differ.
 */
@ClusterTest
class PingPongAcrossNodesClusterTest {
    private static final Duration RUN = Duration.ofSeconds(120);

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrdma.nativetest.interop.PingPongInteropDeviceTest#exchanges")
    void interoperatesWithTheCExampleOnTheOtherNode(Exchange exchange, Context ctx) throws Exception {
        ClusterNode peer = ClusterNode.peer();
        String variant = exchange.variant();
        List<String> args = args(ctx, exchange.port(), exchange.extra());
        if (exchange.javaServer()) {
            CompletableFuture<ToolRun> server = jrdma(variant, args);
            awaitListening(exchange.port(), server);
            String here = ClusterNode.localDataAddress().getHostAddress();
            try (ClusterNode.Remote client = peer.start(command(variant, withServer(args, here)))) {
                NodeAgent.Outcome c = client.await(RUN);
                check(variant, exchange.size(), server.get(RUN.toSeconds(), TimeUnit.SECONDS),
                        new ToolRun(c.status(), c.output()));
            }
        } else {
            try (ClusterNode.Remote server = peer.start(command(variant, args))) {
                peer.awaitListening(exchange.port(), Duration.ofSeconds(60));
                ToolRun client = jrdma(variant, withServer(args, peer.dataAddress().getHostAddress()))
                        .get(RUN.toSeconds(), TimeUnit.SECONDS);
                NodeAgent.Outcome s = server.await(RUN);
                check(variant, exchange.size(), new ToolRun(s.status(), s.output()), client);
            }
        }
    }
}
