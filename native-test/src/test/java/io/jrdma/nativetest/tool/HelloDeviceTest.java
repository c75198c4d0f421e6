package io.jrdma.nativetest.tool;

import io.jrdma.ibverbs.Context;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.ToolRun;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code jrdma hello}: a client RDMA-writes "hello verbs" into a server's memory after a hand-made exchange. */
@RdmaDeviceTest
class HelloDeviceTest {

    @Test
    void theClientsWordsLandInTheServersMemory(Context ctx) throws Exception {
        String dev = ctx.device().name();
        CompletableFuture<ToolRun> server = ToolRun.jrdma(List.of("hello", "-d", dev, "-p", "18611"));
        ToolRun client;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        do {
            // Until the server's socket listens (its JVM thread may still be starting up).
            client = ToolRun.jrdma(List.of("hello", "-d", dev, "-p", "18611", "127.0.0.1")).get(60, TimeUnit.SECONDS);
        } while (client.output().contains("Connection refused") && System.nanoTime() < deadline);
        ToolRun served = server.get(60, TimeUnit.SECONDS);
        String logs = "server:\n" + served.output() + "\nclient:\n" + client.output();
        assertEquals(0, served.status(), logs);
        assertEquals(0, client.status(), logs);
        assertTrue(served.output().contains("received in my memory: \"hello verbs\" (RDMA write with immediate "
                + "0x48454c4f)"), logs);
        assertTrue(client.output().contains("the server read it"), logs);
        // Each side printed what it sent and what it learned; the client learned the server's buffer and rkey.
        assertTrue(client.output().matches("(?s).*remote address: .*, buffer 0x\\p{XDigit}+, rkey 0x\\p{XDigit}+.*"),
                logs);
    }
}
