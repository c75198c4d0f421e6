package io.jrdma.nativetest.interop;

import io.jrdma.ibverbs.Context;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.nativetest.support.TcpListeners;
import io.jrdma.nativetest.support.ToolRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jrdma pingpong} against rdma-core's {@code ibv_*_pingpong}, each variant in both roles, with data validation
 * (-c) over the RoCE v2 GID: the handshake, the transport setup and the data path must all match the C examples'.
 */
@RdmaDeviceTest
public class PingPongInteropDeviceTest {
    private static final int ITERS = 300;
    private static final Pattern LOCAL_QPN = Pattern.compile("local address: +LID 0x\\p{XDigit}{4}, QPN 0x(\\w{6})");
    private static final Pattern REMOTE_QPN = Pattern.compile("remote address: LID 0x\\p{XDigit}{4}, QPN 0x(\\w{6})");

    /**
     * One exchange: the example variant, which side runs in Java, a port of its own (so that a server left over from
     * another exchange cannot answer), the message size the examples count with, and extra arguments for both sides.
     */
    public record Exchange(String variant, boolean javaServer, int port, int size, List<String> extra) {
        @Override
        public String toString() {
            return variant + (javaServer ? ": Java server, C client" : ": C server, Java client")
                    + (extra.isEmpty() ? "" : " " + String.join(" ", extra));
        }
    }

    static Stream<Exchange> exchanges() {
        return Stream.of(
                new Exchange("rc", true, 18601, 8192, List.of("-s", "8192")),
                new Exchange("rc", false, 18602, 8192, List.of("-s", "8192")),
                new Exchange("uc", true, 18603, 4096, List.of("-e")),
                new Exchange("uc", false, 18604, 4096, List.of("-e")),
                new Exchange("ud", true, 18605, 1024, List.of()),
                new Exchange("ud", false, 18606, 1024, List.of()),
                new Exchange("srq", true, 18607, 4096, List.of()),
                new Exchange("srq", false, 18608, 4096, List.of("-q", "4")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("exchanges")
    void interoperatesWithTheCExample(Exchange exchange, Context ctx) throws Exception {
        List<String> args = args(ctx, exchange.port(), exchange.extra());
        if (exchange.javaServer()) {
            javaServerCClient(exchange.variant(), exchange.port(), exchange.size(), args);
        } else {
            cServerJavaClient(exchange.variant(), exchange.port(), exchange.size(), args);
        }
    }

    private static void javaServerCClient(String variant, int port, int size, List<String> args) throws Exception {
        CompletableFuture<ToolRun> server = jrdma(variant, args);
        awaitListening(port, server);
        ToolRun client = c(variant, withServer(args, "127.0.0.1"));
        ToolRun javaServer = server.get(120, TimeUnit.SECONDS);
        check(variant, size, javaServer, client);
    }

    private static void cServerJavaClient(String variant, int port, int size, List<String> args) throws Exception {
        Path log = Files.createTempFile("ibv_" + variant + "_pingpong", ".log");
        Process server = new ProcessBuilder(command(variant, args)).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            awaitListening(port, server.onExit());
            ToolRun client = jrdma(variant, withServer(args, "127.0.0.1")).get(120, TimeUnit.SECONDS);
            assertTrue(server.waitFor(60, TimeUnit.SECONDS), "ibv_" + variant + "_pingpong server finished");
            check(variant, size, new ToolRun(server.exitValue(), Files.readString(log)), client);
        } finally {
            server.destroyForcibly();
        }
    }

    /** Both sides ran to the end, counted the same bytes, the server found the client's data, QPNs match. */
    public static void check(String variant, int size, ToolRun server, ToolRun client) {
        String logs = "server:\n" + server.output() + "\nclient:\n" + client.output();
        assertEquals(0, server.status(), logs);
        assertEquals(0, client.status(), logs);
        for (ToolRun r : List.of(server, client)) {
            // The examples count both directions: 2 x iters x size bytes.
            assertTrue(r.output().contains(2L * ITERS * size + " bytes in "), logs);
            assertTrue(r.output().contains(ITERS + " iters in "), logs);
        }
        assertFalse(server.output().contains("invalid data"), logs);
        assertEquals(qpns(LOCAL_QPN, server.output()), qpns(REMOTE_QPN, client.output()), "client saw the server's QPs\n"
                + logs);
        assertEquals(qpns(LOCAL_QPN, client.output()), qpns(REMOTE_QPN, server.output()), "server saw the client's QPs\n"
                + logs);
        assertFalse(qpns(LOCAL_QPN, server.output()).isEmpty(), logs);
        // ud_pingpong's local address line alone has "PSN 0x…: GID".
        String separator = variant.equals("ud") ? ":" : ",";
        for (ToolRun r : List.of(server, client)) {
            assertTrue(Pattern.compile("local address: +LID .*, PSN 0x\\p{XDigit}{6}" + separator + " GID ")
                    .matcher(r.output()).find(), logs);
        }
    }

    private static List<String> qpns(Pattern p, String output) {
        List<String> found = new ArrayList<>();
        Matcher m = p.matcher(output);
        while (m.find()) {
            found.add(m.group(1).toLowerCase(Locale.ROOT));
        }
        return found;
    }

    public static List<String> args(Context ctx, int port, List<String> extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("-d", ctx.device().name(), "-n", Integer.toString(ITERS), "-c",
                "-p", Integer.toString(port)));
        int gid = DeviceSupport.gidIndex(ctx);
        if (gid >= 0) {
            args.addAll(List.of("-g", Integer.toString(gid)));
        }
        args.addAll(extra);
        return args;
    }

    public static List<String> withServer(List<String> args, String host) {
        List<String> client = new ArrayList<>(args);
        client.add(host);
        return client;
    }

    public static List<String> command(String variant, List<String> args) {
        List<String> cmd = new ArrayList<>(List.of("ibv_" + variant + "_pingpong"));
        cmd.addAll(args);
        return cmd;
    }

    private static ToolRun c(String variant, List<String> args) throws Exception {
        return ToolRun.process(command(variant, args), 120);
    }

    /** {@code jrdma pingpong VARIANT ARGS}, in this process. */
    public static CompletableFuture<ToolRun> jrdma(String variant, List<String> args) {
        List<String> line = new ArrayList<>(List.of("pingpong", variant));
        line.addAll(args);
        return ToolRun.jrdma(line);
    }

    /** Waits until something listens on TCP {@code port}, failing early if {@code server} ends first. */
    public static void awaitListening(int port, CompletableFuture<?> server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (TcpListeners.listening(port)) {
                return;
            }
            if (server.isDone()) {
                throw new AssertionError("the server ended before listening: " + server.get());
            }
            Thread.sleep(100);
        }
        throw new AssertionError("nothing listens on port " + port);
    }
}
