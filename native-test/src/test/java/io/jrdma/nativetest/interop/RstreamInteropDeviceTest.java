package io.jrdma.nativetest.interop;

import io.jrdma.ibverbs.Context;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.CmListeners;
import io.jrdma.nativetest.support.TcpListeners;
import io.jrdma.nativetest.support.ToolRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.jrdma.nativetest.support.DeviceSupport.ipAddress;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jrdma rstream} against librdmacm's C {@code rstream}, in both roles, with rstream's data verification
 * ({@code -T v}): over rsockets (jrdma-nio's channels), and with {@code -T s} over TCP (the JDK's channels against
 * the C tool's kernel sockets). Each side checks every byte of the other's and prints rstream's result line.
 */
@RdmaDeviceTest
class RstreamInteropDeviceTest {
    private static final List<String> TEST = List.of("-S", "4000", "-C", "50", "-I", "3", "-T", "v");

    private static List<String> line(String first, boolean tcp, String... more) {
        List<String> line = new ArrayList<>(List.of(first));
        line.addAll(TEST);
        if (tcp) {
            line.addAll(List.of("-T", "s"));
        }
        line.addAll(List.of(more));
        return line;
    }

    @ParameterizedTest(name = "over TCP: {0}")
    @ValueSource(booleans = {false, true})
    void javaClientAgainstCServer(boolean tcp, Context ctx) throws Exception {
        String ip = ipAddress(ctx).getHostAddress();
        String port = tcp ? "7483" : "7484";
        CompletableFuture<ToolRun> server = ToolRun.start(line("rstream", tcp, "-b", ip, "-p", port), 120);
        // jrdma rstream's client retries until the server listens.
        ToolRun client = ToolRun.jrdma(line("rstream", tcp, "-s", ip, "-p", port)).get(120, TimeUnit.SECONDS);
        check(client, server.get(60, TimeUnit.SECONDS));
    }

    @ParameterizedTest(name = "over TCP: {0}")
    @ValueSource(booleans = {false, true})
    void cClientAgainstJavaServer(boolean tcp, Context ctx) throws Exception {
        String ip = ipAddress(ctx).getHostAddress();
        String port = tcp ? "7485" : "7486";
        CompletableFuture<ToolRun> server = ToolRun.jrdma(line("rstream", tcp, "-b", ip, "-p", port));
        // rstream reports a server that does not listen yet as a refused connect or as a failed rpoll, depending on
        // timing (over TCP and over rsockets alike): start it once the kernel's tables show the Java listener.
        int number = Integer.parseInt(port);
        Deadline listening = Deadline.in(Duration.ofSeconds(90));
        while (!(tcp ? TcpListeners.listening(number) : CmListeners.listening(number))) {
            assertFalse(listening.passed() || server.isDone(), "the Java server listens on port " + port + ": "
                    + (server.isDone() ? server.join() : "not yet"));
            Thread.sleep(100);
        }
        ToolRun client = ToolRun.process(line("rstream", tcp, "-s", ip, "-p", port), 120);
        try {
            check(client, server.get(60, TimeUnit.SECONDS));
        } catch (TimeoutException e) {
            throw new AssertionError("the Java server did not end; the C client ended with " + client, e);
        }
    }

    /** Both ended well, each verified the other's 2 x 3 x 50 x 4000 bytes, and each printed its result line. */
    private static void check(ToolRun client, ToolRun server) {
        String logs = "client:\n" + client.output() + "\nserver:\n" + server.output();
        assertEquals(0, client.status(), logs);
        assertEquals(0, server.status(), logs);
        for (ToolRun run : List.of(client, server)) {
            assertTrue(run.output().lines().anyMatch(l -> l.matches("custom\\s+3.9k\\s+50\\s+3\\s+1.1m\\s+.*")), logs);
            assertTrue(!run.output().contains("verification failed"), logs);
        }
    }
}
