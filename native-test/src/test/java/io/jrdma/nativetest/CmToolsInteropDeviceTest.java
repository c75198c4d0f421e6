package io.jrdma.nativetest;

import io.jrdma.ibverbs.Context;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.rdmacm.CmEventException;
import io.jrdma.rdmacm.CmEventType;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.jrdma.nativetest.DeviceSupport.ipAddress;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The Java peers of rdmacm-utils' {@code ucmatose}, {@code udaddy}, {@code mckey} and {@code rdma_server} /
 * {@code rdma_client} against the C programs, each in both roles, on one device: the C program must end with status
 * 0 (which it only does after its whole exchange) and the Java peer must have seen the exchange the protocol defines.
 */
@RdmaDeviceTest
class CmToolsInteropDeviceTest {
    private static final int CONNECTIONS = 2;
    private static final int COUNT = 10;
    private static final int SIZE = 100;
    /** udaddy has no port option: it always uses its own. */
    private static final int UDADDY_PORT = 7174;
    private static final Duration PEER_TIMEOUT = Duration.ofSeconds(60);
    private static final int TOOL_SECONDS = 90;
    /** What mckey's sender waits after joining, for the receivers to join. */
    private static final Duration MCKEY_SETTLE = Duration.ofSeconds(3);
    /** How the cmatose-family programs end when every step succeeded. */
    private static final String COMPLETE = "test complete\nreturn status 0";

    @Test
    void cmatoseJavaServerAndCClient(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        javaServerCClient(listening -> CmatosePeer.server(new InetSocketAddress(ip, 18711), listening, CONNECTIONS,
                COUNT, SIZE, PEER_TIMEOUT), withCounts("ucmatose", "-s", ip, "-b", ip, "-p", "18711"),
                "receiving data transfers\nsending replies\ndata transfers complete", COMPLETE);
    }

    @Test
    void cmatoseCServerAndJavaClient(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        cServerJavaClient(withCounts("ucmatose", "-b", ip, "-p", "18712"), () -> CmatosePeer.client(ip,
                new InetSocketAddress(ip, 18712), CONNECTIONS, COUNT, SIZE, PEER_TIMEOUT),
                "data transfers complete\ncmatose: disconnecting\ndisconnected", COMPLETE);
    }

    @Test
    void udaddyJavaServerAndCClient(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        javaServerCClient(listening -> UdaddyPeer.server(new InetSocketAddress(ip, UDADDY_PORT), listening,
                CONNECTIONS, COUNT, SIZE, PEER_TIMEOUT), withCounts("udaddy", "-s", ip, "-b", ip),
                "receiving data transfers\ndata transfers complete", COMPLETE);
    }

    @Test
    void udaddyCServerAndJavaClient(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        cServerJavaClient(withCounts("udaddy", "-b", ip), () -> UdaddyPeer.client(ip,
                new InetSocketAddress(ip, UDADDY_PORT), CONNECTIONS, COUNT, SIZE, PEER_TIMEOUT),
                "sending replies\ndata transfers complete", COMPLETE);
    }

    @Test
    void mckeyJavaReceiverAndCSender(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        InetAddress group = InetAddress.getByName("239.18.7.1");
        CompletableFuture<String> receiver = whenReady("mckey-receiver",
                joined -> MckeyPeer.receiver(ip, group, COUNT, SIZE, joined, PEER_TIMEOUT));
        ToolRun sender = ToolRun.process(mckey(group, ip, "-s"), TOOL_SECONDS);
        assertEnded(sender, "initiating data transfers\ndata transfers complete", COMPLETE);
        String received = receiver.get(PEER_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(received.startsWith("mckey receiver: " + COUNT + " datagrams"), received);
    }

    @Test
    void mckeyCReceiverAndJavaSender(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        InetAddress group = InetAddress.getByName("239.18.7.2");
        CompletableFuture<ToolRun> receiver = ToolRun.start(mckey(group, ip), TOOL_SECONDS);
        // Like mckey's own sender, the Java one gives the receiver its settling time to join.
        MckeyPeer.sender(ip, group, COUNT, SIZE, MCKEY_SETTLE, PEER_TIMEOUT);
        assertEnded(receiver.get(TOOL_SECONDS, TimeUnit.SECONDS), "receiving data transfers\ndata transfers complete",
                COMPLETE);
    }

    @Test
    void rdmaServerAndJavaClient(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        cServerJavaClient(List.of("rdma_server", "-s", ip.getHostAddress(), "-p", "18713"),
                () -> RdmaServerClientPeer.client(new InetSocketAddress(ip, 18713), PEER_TIMEOUT),
                "rdma_server: end 0");
    }

    @Test
    void javaServerAndRdmaClient(Context ctx) throws Exception {
        InetAddress ip = ipAddress(ctx);
        javaServerCClient(listening -> RdmaServerClientPeer.server(new InetSocketAddress(ip, 18714), listening,
                PEER_TIMEOUT),
                List.of("rdma_client", "-s", ip.getHostAddress(), "-p", "18714"), "rdma_client: end 0");
    }

    /** {@code tool args} with the exchange's counts; addresses as numbers. */
    private static List<String> withCounts(String tool, Object... args) {
        List<String> line = new ArrayList<>(List.of(tool));
        for (Object a : args) {
            line.add(a instanceof InetAddress ip ? ip.getHostAddress() : a.toString());
        }
        line.addAll(List.of("-C", Integer.toString(COUNT), "-S", Integer.toString(SIZE)));
        if (!tool.equals("mckey")) {
            line.addAll(List.of("-c", Integer.toString(CONNECTIONS)));
        }
        return line;
    }

    private static List<String> mckey(InetAddress group, InetAddress ip, String... more) {
        List<String> line = withCounts("mckey", "-m", group, "-b", ip);
        line.addAll(List.of(more));
        return line;
    }

    /** A Java peer that says when its far side may start. */
    @FunctionalInterface
    private interface Signalling {
        String run(Runnable ready) throws Exception;
    }

    /**
     * Starts {@code peer} in the background and returns once it said it is ready (or ended: its future tells how):
     * a C program started before would be refused, or, over UD, wait out the connection manager's retries.
     */
    private static CompletableFuture<String> whenReady(String name, Signalling peer) throws Exception {
        CountDownLatch ready = new CountDownLatch(1);
        CompletableFuture<String> result = ToolRun.inBackground(name, () -> peer.run(ready::countDown));
        // The peer's own timeout bounds this; one that failed first tells why through its future.
        while (!ready.await(100, TimeUnit.MILLISECONDS)) {
            if (result.isDone()) {
                fail(name + " ended before it was ready: " + result.get());
            }
        }
        return result;
    }

    /** The Java server in the background, the C client once it listens; both must succeed. */
    private static void javaServerCClient(Signalling server, List<String> client, String... expected)
            throws Exception {
        CompletableFuture<String> javaServer = whenReady("java-peer-server", server);
        assertEnded(ToolRun.process(client, TOOL_SECONDS), expected);
        javaServer.get(PEER_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /** The C server in the background, the Java client until it found it listening; both must succeed. */
    private static void cServerJavaClient(List<String> server, ToolRun.Attempt<String> client, String... expected)
            throws Exception {
        CompletableFuture<ToolRun> cServer = ToolRun.start(server, TOOL_SECONDS);
        javaClient(client);
        assertEnded(cServer.get(TOOL_SECONDS, TimeUnit.SECONDS), expected);
    }

    /** The Java client, again while the C server does not listen yet. */
    private static void javaClient(ToolRun.Attempt<String> peer) throws Exception {
        ToolRun.untilListening(() -> {
            try {
                return peer.run();
            } catch (CmEventException e) {
                if (e.event() != null && (e.event().type() == CmEventType.REJECTED
                        || e.event().type() == CmEventType.UNREACHABLE)) {
                    return null;
                }
                throw e;
            }
        }, Objects::isNull);
    }

    /** The C program ended with status 0, having printed each of {@code expected} (steps, in order, and its end). */
    private static void assertEnded(ToolRun c, String... expected) {
        assertEquals(0, c.status(), c.output());
        for (String e : expected) {
            assertTrue(c.output().contains(e), "no \"" + e + "\" in\n" + c.output());
        }
    }
}
