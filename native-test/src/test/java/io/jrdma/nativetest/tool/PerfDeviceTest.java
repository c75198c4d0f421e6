package io.jrdma.nativetest.tool;

import io.jrdma.tool.Jrdma;
import io.jrdma.ibverbs.Context;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.nativetest.support.ToolRun;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jrdma perf}: a Java server and a Java client for each test, with few iterations. Timing values are only
 * checked to be positive: the emulated device measures nothing meaningful.
 */
@RdmaDeviceTest
class PerfDeviceTest {
    private static final String LATENCY_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
            + "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    private static final String BANDWIDTH_HEADER = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]"
            + "   MsgRate[Mpps]";

    /** The server's and the client's run of one test. */
    record Pair(ToolRun server, ToolRun client) {
        String logs() {
            return "server:\n" + server.output() + "\nclient:\n" + client.output();
        }
    }

    @Test
    void writeLatency(Context ctx) throws Exception {
        Pair p = run(ctx, 18701, false, "write-lat", "-n", "200", "-s", "64", "--warmup", "50");
        assertTable(p.client(), LATENCY_HEADER, 64, 200, 9, p.logs());
        assertTable(p.server(), LATENCY_HEADER, 64, 200, 9, p.logs());   // both sides of a ping-pong measure
    }

    @Test
    void sendLatency(Context ctx) throws Exception {
        Pair p = run(ctx, 18702, false, "send-lat", "-n", "200", "-s", "2", "--warmup", "50");
        assertTable(p.client(), LATENCY_HEADER, 2, 200, 9, p.logs());
        assertTable(p.server(), LATENCY_HEADER, 2, 200, 9, p.logs());
    }

    @Test
    void readLatency(Context ctx) throws Exception {
        Pair p = run(ctx, 18703, false, "read-lat", "-n", "200", "-s", "4096", "--warmup", "0");
        assertTable(p.client(), LATENCY_HEADER, 4096, 200, 9, p.logs());
        assertTrue(!p.server().output().contains("#bytes"), "the server of a read only serves memory\n" + p.logs());
    }

    @Test
    void atomicLatency(Context ctx) throws Exception {
        Pair p = run(ctx, 18704, false, "atomic-lat", "-n", "200", "--warmup", "20");
        assertTable(p.client(), LATENCY_HEADER, 8, 200, 9, p.logs());
    }

    @Test
    void writeBandwidth(Context ctx) throws Exception {
        Pair p = run(ctx, 18705, false, "write-bw", "-n", "200", "-s", "4096", "--warmup", "300");
        assertTable(p.client(), BANDWIDTH_HEADER, 4096, 200, 5, p.logs());
        assertTable(p.server(), BANDWIDTH_HEADER, 4096, 200, 5, p.logs());   // the client's results, sent over
    }

    @Test
    void sendBandwidth(Context ctx) throws Exception {
        Pair p = run(ctx, 18706, false, "send-bw", "-n", "200", "-s", "1024", "--warmup", "600");
        assertTable(p.client(), BANDWIDTH_HEADER, 1024, 200, 5, p.logs());
        assertTable(p.server(), BANDWIDTH_HEADER, 1024, 200, 5, p.logs());
    }

    @Test
    void readBandwidth(Context ctx) throws Exception {
        Pair p = run(ctx, 18707, false, "read-bw", "-n", "200", "-s", "65536", "--warmup", "0");
        assertTable(p.client(), BANDWIDTH_HEADER, 65536, 200, 5, p.logs());
    }

    @Test
    void writeLatencyThroughRdmaCm(Context ctx) throws Exception {
        Pair p = run(ctx, 18708, true, "write-lat", "-R", "-n", "100", "-s", "16", "--warmup", "0");
        assertTable(p.client(), LATENCY_HEADER, 16, 100, 9, p.logs());
        assertTrue(p.client().output().contains("rdma_cm QPs     : ON"), p.logs());
    }

    @Test
    void readBandwidthAsJson(Context ctx) throws Exception {
        // Soft-RoCE's count of transport retries; the tool reports the part of it its measured run caused.
        Path retryCounter = Path.of("/sys/class/infiniband", ctx.device().name(),
                "ports/1/hw_counters/completer_retry_err");
        long retriesBefore = Long.parseLong(Files.readString(retryCounter).strip());
        Pair p = run(ctx, 18709, false, "read-bw", "--json", "--report_gbits", "-n", "100", "-s", "8192",
                "--warmup", "0");
        long retriesDuring = Long.parseLong(Files.readString(retryCounter).strip()) - retriesBefore;
        String json = p.client().output().strip();
        assertTrue(json.startsWith("{\"test\":\"read-bw\",\"device\":\"") && json.endsWith("}]}"), p.logs());
        assertEquals(1, json.lines().count(), "one JSON document and nothing else\n" + p.logs());
        assertEquals("8192", field(json, "bytes"), p.logs());
        assertEquals("100", field(json, "iterations"), p.logs());
        assertEquals("0", field(json, "warmup"), p.logs());
        assertEquals("0", field(json, "warmup_iterations"), p.logs());
        for (String key : List.of("bw_peak_gbit_per_sec", "bw_average_gbit_per_sec", "msg_rate_mpps")) {
            assertTrue(Double.parseDouble(field(json, key)) > 0, key + "\n" + p.logs());
        }
        long reported = Long.parseLong(field(json, "transport_retries"));
        assertTrue(reported >= 0 && reported <= retriesDuring,
                reported + " retries reported, " + retriesDuring + " during the whole run\n" + p.logs());
    }

    /**
     * 257 untimed round trips leave 257 = 1 (mod 256) as the write counter's last value: unless the warm-up's
     * counters are cleared before the timed run, the server takes that stale 1 for the timed run's first write and
     * the ping-pong falls out of step. Both sides report the timed count and the warm-up they ran.
     */
    @Test
    void writeLatencyAfterAWarmupMeasuresOnlyTheTimedIterations(Context ctx) throws Exception {
        Pair p = run(ctx, 18711, false, "write-lat", "--json", "-n", "100", "-s", "8", "--warmup", "257");
        for (ToolRun side : List.of(p.client(), p.server())) {
            String json = side.output().strip();
            assertEquals("257", field(json, "warmup"), p.logs());
            assertEquals("100", field(json, "iterations"), p.logs());
            assertEquals("257", field(json, "warmup_iterations"), p.logs());
            assertTrue(Double.parseDouble(field(json, "t_typical_usec")) > 0, p.logs());
        }
    }

    /** A client whose warm-up differs from the server's is refused in the exchange, before anything runs. */
    @Test
    void sidesWithDifferentWarmupsRefuseEachOther(Context ctx) throws Exception {
        List<String> common = List.of("perf", "write-lat", "-n", "100", "-p", "18712", "-d", ctx.device().name(),
                "-x", Integer.toString(DeviceSupport.gidIndex(ctx)));
        List<String> serverLine = new ArrayList<>(common);
        serverLine.addAll(List.of("--warmup", "10"));
        List<String> clientLine = new ArrayList<>(common);
        clientLine.addAll(List.of("--warmup", "20", "127.0.0.1"));
        Pair p = runLines(serverLine, clientLine);
        assertTrue(p.client().status() != 0 && p.server().status() != 0, p.logs());
        assertTrue(p.server().output().contains("--warmup") && p.client().output().contains("--warmup"), p.logs());
    }

    /**
     * {@code jrdma endpoint-perf}, jrdma-endpoint's message path: a ping-pong and pipelined messages through the
     * handler flavour and the futures one, and a ping-pong through {@code RdmaConnection}, two sizes each, every
     * result row with its measured run's bounds.
     */
    @Test
    void endpointPerfMeasuresEveryFlavour(Context ctx) throws Exception {
        String ip = DeviceSupport.ipAddress(ctx).getHostAddress();
        int port = 18720;
        Map<String, String> labels = Map.of("handler", "trySend+onMessage", "future", "send+onMessage",
                "connection", "RdmaConnection send+receive");
        for (String api : List.of("handler", "future", "connection")) {
            for (String test : api.equals("connection") ? List.of("lat") : List.of("lat", "rate")) {
                List<String> serverLine = new ArrayList<>(List.of("endpoint-perf", test, "-b", ip, "-p",
                        Integer.toString(++port), "--sizes", "64:300,4096:100", "--warmup", "50", "--json"));
                List<String> clientLine = new ArrayList<>(serverLine.subList(0, 2));
                clientLine.addAll(serverLine.subList(4, serverLine.size()));
                clientLine.addAll(List.of("--api", api, ip));
                if (api.equals("connection")) {
                    serverLine.addAll(List.of("--api", api));
                }
                Pair p = runLines(serverLine, clientLine);
                assertEquals(0, p.server().status(), p.logs());
                assertEquals(0, p.client().status(), p.logs());
                String json = p.client().output().strip();
                assertTrue(json.startsWith("{\"test\":\"endpoint-" + test + "\",\"api\":\"" + labels.get(api) + "\""),
                        p.logs());
                assertEquals(2, json.split("\"run_monotonic_ns\":\\[\\d+,\\d+]", -1).length - 1, p.logs());
                assertTrue(json.contains("{\"bytes\":64,\"iterations\":300,")
                        && json.contains("{\"bytes\":4096,\"iterations\":100,"), p.logs());
                String metric = test.equals("lat") ? "t_typical_usec" : "msg_rate_mpps";
                assertTrue(Double.parseDouble(field(json, metric)) > 0, metric + "\n" + p.logs());
            }
        }
    }

    /** Over rdma_cm both sides meet in an RDMA barrier (over TCP a dead peer closes the socket), so that is the test. */
    @Test
    void aServerWhoseClientDiesInTheMiddleEndsWithAClearError(Context ctx) throws Exception {
        List<String> line = new ArrayList<>(List.of("perf", "write-bw", "-R", "-D", "3600", "-s", "64", "-p", "18710",
                "-d", ctx.device().name(), "-x", Integer.toString(DeviceSupport.gidIndex(ctx))));
        CompletableFuture<ToolRun> server = ToolRun.jrdma(line);
        Path clientLog = Files.createTempFile("perf-client", ".log");
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Jrdma.class.getName()));
        command.addAll(line);
        command.add(DeviceSupport.ipAddress(ctx).getHostAddress());
        Process client = null;
        try {
            // The client streams for an hour; once it is connected, the server only waits in its barrier.
            for (long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
                 !Files.readString(clientLog).contains("remote address"); Thread.sleep(200)) {
                if (client == null || !client.isAlive()) {
                    assertTrue(System.nanoTime() < deadline, "the client never connected:\n" + Files.readString(clientLog));
                    client = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(clientLog.toFile())
                            .start();
                    client.waitFor(2, TimeUnit.SECONDS);
                }
            }
            client.destroyForcibly().waitFor();
            ToolRun served = server.get(120, TimeUnit.SECONDS);
            assertTrue(served.status() != 0, served.output());
            assertTrue(served.output().contains("the peer stopped answering"), served.output());
        } finally {
            if (client != null) {
                client.destroyForcibly();
            }
        }
    }

    private static String field(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":([0-9.eE+-]+)").matcher(json);
        assertTrue(m.find(), key + " in " + json);
        return m.group(1);
    }

    /** Starts the server, then the client (again while the server is not listening yet); both must exit 0. */
    private static Pair run(Context ctx, int port, boolean cm, String... test) throws Exception {
        List<String> common = new ArrayList<>(List.of("perf"));
        common.addAll(Arrays.asList(test));
        common.addAll(List.of("-p", Integer.toString(port)));
        if (!cm) {
            common.addAll(List.of("-d", ctx.device().name(), "-x", Integer.toString(DeviceSupport.gidIndex(ctx))));
        }
        List<String> clientLine = new ArrayList<>(common);
        clientLine.add(cm ? DeviceSupport.ipAddress(ctx).getHostAddress() : "127.0.0.1");
        Pair p = runLines(common, clientLine);
        assertEquals(0, p.server().status(), p.logs());
        assertEquals(0, p.client().status(), p.logs());
        return p;
    }

    /** Starts the server, then the client (again while the server is not listening yet), and waits for both. */
    static Pair runLines(List<String> serverLine, List<String> clientLine) throws Exception {
        CompletableFuture<ToolRun> server = ToolRun.jrdma(serverLine);
        ToolRun client;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        do {
            client = ToolRun.jrdma(clientLine).get(180, TimeUnit.SECONDS);
        } while (client.status() != 0 && notListeningYet(client.output()) && System.nanoTime() < deadline
                && pause());
        return new Pair(server.get(180, TimeUnit.SECONDS), client);
    }

    private static boolean notListeningYet(String output) {
        String o = output.toLowerCase();
        return o.contains("connection refused") || o.contains("reject") || o.contains("unreachable");
    }

    private static boolean pause() throws InterruptedException {
        Thread.sleep(500);
        return true;
    }

    /** The table under {@code header} has one row for {@code size} and {@code iterations}, all numbers positive. */
    private static void assertTable(ToolRun run, String header, int size, int iterations, int columns, String logs) {
        List<String> lines = run.output().lines().toList();
        int at = lines.indexOf(header);
        assertTrue(at >= 0, "table header\n" + logs);
        String[] row = lines.get(at + 1).trim().split("\\s+");
        assertEquals(columns, row.length, lines.get(at + 1) + "\n" + logs);
        assertEquals(Integer.toString(size), row[0], logs);
        assertEquals(Integer.toString(iterations), row[1], logs);
        for (int i = 2; i < columns; i++) {
            assertTrue(Double.parseDouble(row[i]) > 0, "column " + i + " of " + lines.get(at + 1) + "\n" + logs);
        }
        assertTrue(lines.get(at + 2).matches("-{20,}"), "the table closes\n" + logs);
    }
}
