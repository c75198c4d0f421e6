package io.jrdma.tool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jrdma rstream --runs N --paced} between two JVMs of the tool on this machine, over TCP ({@code -T s}), which
 * needs no device: each timed run waits for its own line on standard input, so sides given fewer lines than runs
 * print that many results and stop, naming the run their input ended before.
 */
class RstreamPacedRunsTest {
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void eachTimedRunWaitsForItsLineAndSidesStopWhereTheirInputEnds() throws Exception {
        String port = Integer.toString(freePort());
        List<String> test = List.of("-T", "s", "-S", "64", "-C", "1", "-I", "50", "--warmup", "50", "--runs", "3",
                "--paced", "-p", port);
        Process server = rstream("-b", "127.0.0.1", test);
        Process client = rstream("-s", "127.0.0.1", test);
        try {
            for (Process side : List.of(server, client)) {
                try (OutputStream lines = side.getOutputStream()) {
                    lines.write("go\ngo\n".getBytes(StandardCharsets.US_ASCII));
                }
            }
            String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(client.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(1, client.waitFor(), err);
            assertEquals(2, out.lines().filter(line -> line.startsWith("custom ")).count(), out);
            assertEquals(1, out.lines().filter(line -> line.startsWith("name ")).count(), out);
            assertTrue(err.contains("standard input ended before timed run 3 of 3"), err);
            assertEquals(1, server.waitFor());
        } finally {
            server.destroyForcibly();
            client.destroyForcibly();
        }
    }

    private static Process rstream(String role, String address, List<String> test) throws IOException {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-cp", System.getProperty("java.class.path"), Jrdma.class.getName(), "rstream", role, address));
        command.addAll(test);
        return new ProcessBuilder(command).start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
