package io.jrdma.nativetest.interop;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.LinkLayer;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import org.junit.jupiter.api.Test;

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
            common.addAll(List.of("-g", Integer.toString(DeviceSupport.gidIndex(ctx))));
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
                // ibv_rc_pingpong counts both directions: 2 x 200 x 4096 bytes.
                assertTrue(log.contains("1638400 bytes in"), "200 x 4096 bytes each way:\n" + log);
                assertTrue(log.contains("200 iters in"), log);
            }
        } finally {
            server.destroyForcibly();
        }
    }
}
