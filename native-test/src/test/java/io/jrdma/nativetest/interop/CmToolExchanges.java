package io.jrdma.nativetest.interop;

import io.jrdma.nativetest.support.ToolRun;
import io.jrdma.rdmacm.CmEventException;
import io.jrdma.rdmacm.CmEventType;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The exchanges between the Java peers of rdmacm-utils' {@code ucmatose}, {@code udaddy}, {@code mckey} and
 * {@code rdma_server} / {@code rdma_client} and the C programs, each in both roles: the Java peer runs here at
 * {@code javaIp}, the C program wherever {@code c} runs it, at {@code cIp} (the same device, or another node). The C
 * program must end with status 0 (which it only does after its whole exchange) and the Java peer must have seen the
 * exchange the protocol defines.
 *
 * @param javaIp the Java peer's address
 * @param cIp    the C program's address
 * @param c      where the C program runs
 * @param port   the first of the four TCP ports the exchanges use
 */
public record CmToolExchanges(InetAddress javaIp, InetAddress cIp, CProgramRunner c, int port) {
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

    /** Runs a C program in the background, for at most {@code seconds}. */
    @FunctionalInterface
    public interface CProgramRunner {
        CompletableFuture<ToolRun> start(List<String> command, int seconds) throws Exception;
    }

    public void cmatoseJavaServerAndCClient() throws Exception {
        javaServerCClient(listening -> CmatosePeer.server(new InetSocketAddress(javaIp, port), listening, CONNECTIONS,
                COUNT, SIZE, PEER_TIMEOUT), withCounts("ucmatose", "-s", javaIp, "-b", cIp, "-p", port),
                "receiving data transfers\nsending replies\ndata transfers complete", COMPLETE);
    }

    public void cmatoseCServerAndJavaClient() throws Exception {
        cServerJavaClient(withCounts("ucmatose", "-b", cIp, "-p", port + 1), port + 1, () -> CmatosePeer.client(javaIp,
                new InetSocketAddress(cIp, port + 1), CONNECTIONS, COUNT, SIZE, PEER_TIMEOUT),
                "data transfers complete\ncmatose: disconnecting\ndisconnected", COMPLETE);
    }

    public void udaddyJavaServerAndCClient() throws Exception {
        javaServerCClient(listening -> UdaddyPeer.server(new InetSocketAddress(javaIp, UDADDY_PORT), listening,
                CONNECTIONS, COUNT, SIZE, PEER_TIMEOUT), withCounts("udaddy", "-s", javaIp, "-b", cIp),
                "receiving data transfers\ndata transfers complete", COMPLETE);
    }

    public void udaddyCServerAndJavaClient() throws Exception {
        cServerJavaClient(withCounts("udaddy", "-b", cIp), UDADDY_PORT, () -> UdaddyPeer.client(javaIp,
                new InetSocketAddress(cIp, UDADDY_PORT), CONNECTIONS, COUNT, SIZE, PEER_TIMEOUT),
                "sending replies\ndata transfers complete", COMPLETE);
    }

    public void mckeyJavaReceiverAndCSender(InetAddress group) throws Exception {
        CompletableFuture<String> receiver = whenReady("mckey-receiver",
                joined -> MckeyPeer.receiver(javaIp, group, COUNT, SIZE, joined, PEER_TIMEOUT));
        ToolRun sender = c.start(mckey(group, "-s"), TOOL_SECONDS).get(TOOL_SECONDS, TimeUnit.SECONDS);
        assertEnded(sender, "initiating data transfers\ndata transfers complete", COMPLETE);
        String received = receiver.get(PEER_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(received.startsWith("mckey receiver: " + COUNT + " datagrams"), received);
    }

    public void mckeyCReceiverAndJavaSender(InetAddress group) throws Exception {
        CompletableFuture<ToolRun> receiver = c.start(mckey(group), TOOL_SECONDS);
        // Like mckey's own sender, the Java one gives the receiver its settling time to join.
        MckeyPeer.sender(javaIp, group, COUNT, SIZE, MCKEY_SETTLE, PEER_TIMEOUT);
        assertEnded(receiver.get(TOOL_SECONDS, TimeUnit.SECONDS), "receiving data transfers\ndata transfers complete",
                COMPLETE);
    }

    public void rdmaServerAndJavaClient() throws Exception {
        cServerJavaClient(List.of("rdma_server", "-s", cIp.getHostAddress(), "-p", Integer.toString(port + 2)), port + 2,
                () -> RdmaServerClientPeer.client(new InetSocketAddress(cIp, port + 2), PEER_TIMEOUT),
                "rdma_server: end 0");
    }

    public void javaServerAndRdmaClient() throws Exception {
        javaServerCClient(listening -> RdmaServerClientPeer.server(new InetSocketAddress(javaIp, port + 3), listening,
                PEER_TIMEOUT),
                List.of("rdma_client", "-s", javaIp.getHostAddress(), "-p", Integer.toString(port + 3)),
                "rdma_client: end 0");
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

    private List<String> mckey(InetAddress group, String... more) {
        List<String> line = withCounts("mckey", "-m", group, "-b", cIp);
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
    private void javaServerCClient(Signalling server, List<String> client, String... expected)
            throws Exception {
        CompletableFuture<String> javaServer = whenReady("java-peer-server", server);
        assertEnded(c.start(client, TOOL_SECONDS).get(TOOL_SECONDS, TimeUnit.SECONDS), expected);
        javaServer.get(PEER_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /** The C server in the background, the Java client until it found it listening; both must succeed. */
    private void cServerJavaClient(List<String> server, int port, ToolRun.Attempt<String> client,
                                   String... expected) throws Exception {
        CompletableFuture<ToolRun> cServer = c.start(server, TOOL_SECONDS);
        awaitListener(port, cServer);
        javaClient(client);
        assertEnded(cServer.get(TOOL_SECONDS, TimeUnit.SECONDS), expected);
    }

    /**
     * Waits until the C server's connection manager id listens on {@code port}, as the kernel's resource table shows
     * it (on its machine): a request sent before may go unanswered (UD's SIDR request was, once, for a minute).
     */
    private void awaitListener(int port, CompletableFuture<ToolRun> server) throws Exception {
        ToolRun listening = c.start(List.of("sh", "-c", "until rdma res show cm_id | grep -q 'state LISTEN .* src-addr "
                + "[^ ]*:" + port + " '; do sleep 0.2; done"), TOOL_SECONDS).get(TOOL_SECONDS, TimeUnit.SECONDS);
        if (listening.status() != 0) {
            fail("the C server never listened on port " + port + ": " + (server.isDone() ? server.get() : "running"));
        }
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
