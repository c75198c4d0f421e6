package io.jrdma.nativetest.tool;

import io.jrdma.ibverbs.Context;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.nativetest.support.ToolRun;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jrdma blocks}: a Java server and client move a small strided layout in each mode, zero-copy and packed;
 * each side checks what it received byte by byte, gaps included, and fails the run when a byte is wrong. Timing
 * values are only checked to be positive.
 */
@RdmaDeviceTest
class BlocksDeviceTest {
    private static final Pattern ROW = Pattern.compile("\\{\"block_size\":(\\d+),\"blocks\":(\\d+),\"stride\":(\\d+),"
            + "\"payload_bytes\":(\\d+),\"mode\":\"(\\w+)\",\"variant\":\"([\\w-]+)\",\"sges\":(\\d+),"
            + "\"iterations\":(\\d+),\"warmup_iterations\":(\\d+),\"t_median_usec\":([0-9.]+),\"t_min_usec\":([0-9.]+),"
            + "\"t_avg_usec\":([0-9.]+),\"bw_mb_per_sec\":([0-9.]+),\"cpu_client_usec\":([-0-9.]+),"
            + "\"cpu_server_usec\":([-0-9.]+),[^{}]*\"checked\":true[^{}]*}");

    @Test
    void gatherWrite(Context ctx) throws Exception {
        runMode(ctx, "write", 18721);
    }

    @Test
    void scatterRead(Context ctx) throws Exception {
        runMode(ctx, "read", 18722);
    }

    @Test
    void gatherSendIntoScatterReceive(Context ctx) throws Exception {
        runMode(ctx, "send", 18723);
    }

    /** Blocks of an odd size, an odd stride apart: both sides report a row for each variant, checked. */
    private static void runMode(Context ctx, String mode, int port) throws Exception {
        PerfDeviceTest.Pair p = run(ctx, port, "-m", mode, "--block-size", "100,7", "--blocks", "3,5", "--stride",
                "257", "-n", "20", "--warmup", "5", "--json");
        for (ToolRun side : List.of(p.client(), p.server())) {
            String json = side.output().strip();
            assertEquals(1, json.lines().count(), "one JSON document and nothing else\n" + p.logs());
            Matcher m = ROW.matcher(json);
            List<String> seen = new ArrayList<>();
            while (m.find()) {
                int blockSize = Integer.parseInt(m.group(1));
                int blocks = Integer.parseInt(m.group(2));
                assertEquals("257", m.group(3), p.logs());
                assertEquals(blockSize * blocks, Integer.parseInt(m.group(4)), p.logs());
                assertEquals(mode, m.group(5), p.logs());
                boolean packed = m.group(6).equals("packed");
                assertEquals(packed ? 1 : blocks, Integer.parseInt(m.group(7)), p.logs());
                assertEquals("20", m.group(8), p.logs());
                assertEquals("5", m.group(9), p.logs());
                for (int g = 10; g <= 13; g++) {
                    assertTrue(Double.parseDouble(m.group(g)) > 0, "group " + g + "\n" + p.logs());
                }
                seen.add(blockSize + "x" + blocks + " " + m.group(6));
            }
            assertEquals(List.of("100x3 zero-copy", "100x3 packed", "100x5 zero-copy", "100x5 packed",
                    "7x3 zero-copy", "7x3 packed", "7x5 zero-copy", "7x5 packed"), seen, p.logs());
        }
    }

    @Test
    void theTableNamesEveryModeAndVariant(Context ctx) throws Exception {
        PerfDeviceTest.Pair p = run(ctx, 18724, "--block-size", "64", "--blocks", "4", "-n", "10", "--warmup", "0");
        for (ToolRun side : List.of(p.client(), p.server())) {
            String out = side.output();
            for (String row : List.of("write  zero-copy      4", "write  packed         1", "read   zero-copy      4",
                    "read   packed         1", "send   zero-copy      4", "send   packed         1")) {
                assertTrue(out.contains("       64        4        128  " + row), row + "\n" + p.logs());
            }
        }
    }

    /** More blocks than the device scatters in one request: refused before a queue pair exists, naming the limit. */
    @Test
    void moreBlocksThanMaxSgeAreRefused(Context ctx) throws Exception {
        int maxSge = ctx.queryDevice().maxSge();
        ToolRun server = ToolRun.jrdma(List.of("blocks", "-d", ctx.device().name(), "-p", "18725", "-m", "send",
                "--blocks", Integer.toString(maxSge + 1))).get(60, TimeUnit.SECONDS);
        assertEquals(2, server.status(), server.output());
        assertTrue(server.output().contains("--blocks " + (maxSge + 1) + " is more than " + ctx.device().name()
                + " takes in one send work request (max_sge " + maxSge + ")"), server.output());
    }

    private static PerfDeviceTest.Pair run(Context ctx, int port, String... options) throws Exception {
        List<String> server = new ArrayList<>(List.of("blocks", "-p", Integer.toString(port), "-d", ctx.device().name(),
                "-x", Integer.toString(DeviceSupport.gidIndex(ctx))));
        server.addAll(List.of(options));
        List<String> client = new ArrayList<>(server);
        client.add("127.0.0.1");
        PerfDeviceTest.Pair p = PerfDeviceTest.runLines(server, client);
        assertEquals(0, p.server().status(), p.logs());
        assertEquals(0, p.client().status(), p.logs());
        return p;
    }
}
