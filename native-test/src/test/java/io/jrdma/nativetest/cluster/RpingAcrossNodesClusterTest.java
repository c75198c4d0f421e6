package io.jrdma.nativetest.cluster;

import io.jrdma.nativetest.interop.RpingInteropDeviceTest;
import io.jrdma.nativetest.support.ToolRun;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.jrdma.nativetest.interop.RpingInteropDeviceTest.COUNT;
import static io.jrdma.nativetest.interop.RpingInteropDeviceTest.SIZE;
import static io.jrdma.nativetest.interop.RpingInteropDeviceTest.check;

/**
 * {@code jrdma rping} on this node against rdma-core's {@code rping} on the other, both roles, validated: the
 * connection manager resolves a remote address and route, and RDMA reads and writes cross the network.
 */
@ClusterTest
class RpingAcrossNodesClusterTest {
    private static final Duration RUN = Duration.ofSeconds(120);

    @Test
    void javaClientHereAgainstTheCServerThere() throws Exception {
        ClusterNode peer = ClusterNode.peer();
        String there = peer.dataAddress().getHostAddress();
        try (ClusterNode.Remote server = peer.start("rping", "-s", "-v", "-a", there, "-p", "7381", "-S",
                Integer.toString(SIZE))) {
            ToolRun client = ToolRun.untilListening(() -> ToolRun.jrdma(List.of("rping", "-c", "-v", "-V", "-a", there, "-p",
                    "7381", "-C", Integer.toString(COUNT), "-S", Integer.toString(SIZE))).get(RUN.toSeconds(),
                    TimeUnit.SECONDS), RpingInteropDeviceTest::refused);
            NodeAgent.Outcome s = server.await(RUN);
            check(client, "ping data: ", new ToolRun(s.status(), s.output()));
        }
    }

    @Test
    void theCClientThereAgainstAJavaServerHere() throws Exception {
        ClusterNode peer = ClusterNode.peer();
        String here = ClusterNode.localDataAddress().getHostAddress();
        CompletableFuture<ToolRun> server = ToolRun.jrdma(List.of("rping", "-s", "-v", "-a", here, "-p", "7382", "-S",
                Integer.toString(SIZE)));
        ToolRun client = ToolRun.untilListening(() -> {
            try (ClusterNode.Remote c = peer.start("rping", "-c", "-v", "-V", "-a", here, "-p", "7382", "-C",
                    Integer.toString(COUNT), "-S", Integer.toString(SIZE))) {
                NodeAgent.Outcome o = c.await(RUN);
                return new ToolRun(o.status(), o.output());
            }
        }, RpingInteropDeviceTest::refused);
        check(client, "ping data: ", server.get(RUN.toSeconds(), TimeUnit.SECONDS));
    }
}
