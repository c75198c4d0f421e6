package io.jrdma.dockertest;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.GidEntry;
import io.jrdma.ibverbs.GidType;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.junit.RdmaDeviceExtension;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.rdmacm.ConnectionClosedException;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.wait.strategy.Wait;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;

import static io.jrdma.dockertest.StreamMessages.answer;
import static io.jrdma.dockertest.StreamMessages.message;
import static io.jrdma.dockertest.StreamMessages.summary;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * jrdma in Soft-RoCE node containers (Testcontainers): a {@code jrdma stream} server in one container checks the
 * streams of a client in another container and of a client in this JVM at once, and a container stopped
 * mid-transfer is a disconnect for its peer, in both roles.
 */
@RdmaDeviceTest
class SoftRoceContainersDeviceTest {
    private static final int SIZE = 4096;
    /** Bounds a wait that only a broken link makes long; never asserted on as a time. */
    private static final Duration T = Duration.ofMinutes(2);
    /** How long a client container tries to connect: a cold JVM in an emulated VM can take minutes. */
    private static final String CONNECT_SECONDS = "600";

    @BeforeAll
    static void dockerAndImage() {
        boolean docker = DockerClientFactory.instance().isDockerAvailable();
        if (!Boolean.getBoolean(RdmaDeviceExtension.TIER_PROPERTY)) {
            assumeTrue(docker, "no Docker daemon; these tests run in the device tier (scripts/device-tier --docker)");
        }
        assertTrue(docker, "device tier: no Docker daemon answers");
        assertTrue(!DockerClientFactory.instance().client().listImagesCmd().withImageNameFilter(SoftRoceNode.IMAGE)
                .exec().isEmpty(), "no image " + SoftRoceNode.IMAGE + "; build it with docker/build");
    }

    @Test
    void serverContainerChecksAClientContainerAndTheJvmAtOnce(Context ctx) throws Exception {
        String address = ipv4Address(ctx).getHostAddress();
        String port = "7191";
        try (SoftRoceNode server = new SoftRoceNode("jrdma", "stream", "-s", "-a", address, "-p", port, "-n", "2")
                     .waitingFor(Wait.forLogMessage(".*listening on.*\\n", 1));
             SoftRoceNode client = new SoftRoceNode("jrdma", "stream", "-c", "-a", address, "-p", port,
                     "-n", "400", "-S", Integer.toString(SIZE), "-t", CONNECT_SECONDS)) {
            server.start();
            client.start();
            try (RdmaConnection c = connect(address, port)) {
                for (long seq = 0; seq < 300; seq++) {
                    exchange(c, seq);
                }
                c.send(StreamMessages.end(300));
            }
            assertEquals(0, client.awaitExit(), client.getLogs());
            assertEquals(0, server.awaitExit(), server.getLogs());
            assertTrue(client.getLogs().contains("stream: " + summary(400, SIZE) + "\n"), client.getLogs());
            String served = server.getLogs();
            assertTrue(served.contains("complete, " + summary(400, SIZE) + "\n"), served);
            assertTrue(served.contains("complete, " + summary(300, SIZE) + "\n"), served);
        }
    }

    @Test
    void serverContainerStoppedMidTransferIsADisconnectForTheJvm(Context ctx) throws Exception {
        String address = ipv4Address(ctx).getHostAddress();
        String port = "7192";
        try (SoftRoceNode server = new SoftRoceNode("jrdma", "stream", "-s", "-a", address, "-p", port)
                .waitingFor(Wait.forLogMessage(".*listening on.*\\n", 1))) {
            server.start();
            try (RdmaConnection c = connect(address, port)) {
                for (long seq = 0; seq < 50; seq++) {
                    exchange(c, seq);
                }
                server.stop();
                assertThrows(ConnectionClosedException.class, () -> {
                    for (long seq = 50; ; seq++) {
                        exchange(c, seq);
                    }
                });
            }
        }
    }

    @Test
    void clientContainerStoppedMidTransferIsADisconnectForTheJvm(Context ctx) throws Exception {
        InetAddress address = ipv4Address(ctx);
        int port = 7193;
        try (RdmaListener listener = RdmaListener.bind(new InetSocketAddress(address, port), options());
             SoftRoceNode client = new SoftRoceNode("jrdma", "stream", "-c", "-a", address.getHostAddress(),
                     "-p", Integer.toString(port), "-n", "0", "-S", Integer.toString(SIZE), "-t", CONNECT_SECONDS)) {
            client.start();
            RdmaConnection accepted = listener.accept(T);
            assertNotNull(accepted, "the client container connected: " + client.getLogs());
            try (RdmaConnection c = accepted) {
                for (long seq = 0; seq < 50; seq++) {
                    serveOne(c, seq);
                }
                client.stop();
                assertThrows(ConnectionClosedException.class, () -> {
                    for (long seq = 50; ; seq++) {
                        serveOne(c, seq);
                    }
                });
            }
        }
    }

    /** Sends message {@code seq} and checks the server's CRC-32 of it. */
    private static void exchange(RdmaConnection c, long seq) throws Exception {
        byte[] m = message(seq, SIZE);
        c.send(m);
        byte[] got = c.receive(T);
        if (got == null) {
            fail("no answer to message " + seq);
        }
        assertArrayEquals(answer(seq, m), got, "answer to message " + seq);
    }

    /** Receives message {@code seq}, checks every byte, and answers its CRC-32. */
    private static void serveOne(RdmaConnection c, long seq) throws Exception {
        byte[] got = c.receive(T);
        if (got == null) {
            fail("no message " + seq);
        }
        assertArrayEquals(message(seq, SIZE), got, "message " + seq);
        c.send(answer(seq, got));
    }

    private static RdmaConnection connect(String address, String port) throws Exception {
        return RdmaConnection.connect(new InetSocketAddress(address, Integer.parseInt(port)), options(), T);
    }

    private static ConnectionOptions options() {
        return ConnectionOptions.defaults().withMaxMessageSize(SIZE);
    }

    /** The address in the device's IPv4 RoCE v2 GID: where containers on the host network reach it. */
    private static InetAddress ipv4Address(Context ctx) throws Exception {
        int n = ctx.queryPort(1).gidTableLength();
        for (int i = 0; i < n; i++) {
            GidEntry e;
            try {
                e = ctx.queryGid(1, i);
            } catch (RdmaException unpopulated) {
                continue;
            }
            byte[] g = e.gid();
            if (e.type() == GidType.ROCE_V2 && g[10] == (byte) 0xff && g[11] == (byte) 0xff) {
                return InetAddress.getByAddress(Arrays.copyOfRange(g, 12, 16));
            }
        }
        throw new IllegalStateException(ctx.device().name() + " has no IPv4 RoCE v2 GID");
    }
}
