package io.jrdma.nativetest;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.GidEntry;
import io.jrdma.ibverbs.GidType;
import io.jrdma.ibverbs.LinkLayer;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rdma-core's own {@code ibv_rc_pingpong}, server and client, on the device: proves the test bed itself works,
 * independent of any jrdma code path but the GID lookup.
 */
@RdmaDeviceTest
class CPingPongDeviceTest {

    @Test
    void cServerAndClientExchangeAndValidateData(Context ctx) throws Exception {
        List<String> common = new ArrayList<>(List.of("ibv_rc_pingpong", "-d", ctx.device().name(), "-n", "200",
                "-s", "4096", "-c", "-p", "18515"));
        if (ctx.queryPort(1).linkLayer() == LinkLayer.ETHERNET) {
            common.addAll(List.of("-g", Integer.toString(roceV2Gid(ctx))));
        }
        Path dir = Files.createTempDirectory("pingpong");
        Process server = new ProcessBuilder(common).redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile()).start();
        try {
            Thread.sleep(1000);
            List<String> clientCmd = new ArrayList<>(common);
            clientCmd.add("127.0.0.1");
            Process client = new ProcessBuilder(clientCmd).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("client.log").toFile()).start();
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "client finished");
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "server finished");
            String serverLog = Files.readString(dir.resolve("server.log"));
            String clientLog = Files.readString(dir.resolve("client.log"));
            assertEquals(0, client.exitValue(), "client:\n" + clientLog + "\nserver:\n" + serverLog);
            assertEquals(0, server.exitValue(), "server:\n" + serverLog);
            for (String log : List.of(clientLog, serverLog)) {
                assertTrue(log.contains("819200 bytes in"), "200 x 4096 bytes moved:\n" + log);
                assertTrue(log.contains("200 iters in"), log);
            }
        } finally {
            server.destroyForcibly();
        }
    }

    /** The first RoCE v2 GID that carries an IPv4 address (::ffff:a.b.c.d), as ibv_rc_pingpong's -g wants. */
    private static int roceV2Gid(Context ctx) throws IOException {
        int n = ctx.queryPort(1).gidTableLength();
        for (int i = 0; i < n; i++) {
            try {
                GidEntry e = ctx.queryGid(1, i);
                byte[] g = e.gid();
                if (e.type() == GidType.ROCE_V2 && g[10] == (byte) 0xff && g[11] == (byte) 0xff) {
                    return i;
                }
            } catch (RdmaException unpopulated) {
                // sparse table
            }
        }
        throw new IOException("no IPv4 RoCE v2 GID on " + ctx.device().name());
    }
}
