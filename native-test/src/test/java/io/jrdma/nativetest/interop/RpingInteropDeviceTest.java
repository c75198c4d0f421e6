package io.jrdma.nativetest.interop;

import io.jrdma.ibverbs.Context;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.ToolRun;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.jrdma.nativetest.support.DeviceSupport.ipAddress;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jrdma rping} against librdmacm's C {@code rping}, in both roles, with validation (-V) and the data printed
 * (-v): the CM exchange, the advertised buffers and the RDMA read and write back must match the C program's.
 */
@RdmaDeviceTest
public class RpingInteropDeviceTest {
    public static final int COUNT = 20;
    public static final int SIZE = 100;
    private static final Pattern PING = Pattern.compile("^(?:server )?ping data: (rdma-ping-(\\d+): .*)$",
            Pattern.MULTILINE);

    @Test
    void javaClientAgainstCServer(Context ctx) throws Exception {
        String ip = ipAddress(ctx).getHostAddress();
        Process server = new ProcessBuilder("rping", "-s", "-v", "-a", ip, "-p", "7181", "-S", Integer.toString(SIZE))
                .redirectErrorStream(true).start();
        try {
            ToolRun client = ToolRun.untilListening(() -> ToolRun.jrdma(List.of("rping", "-c", "-v", "-V", "-a", ip,
                    "-p", "7181", "-C", Integer.toString(COUNT), "-S", Integer.toString(SIZE)))
                    .get(120, TimeUnit.SECONDS), RpingInteropDeviceTest::refused);
            assertTrue(server.waitFor(60, TimeUnit.SECONDS), "the C server ends when the client disconnects");
            String serverOut = new String(server.getInputStream().readAllBytes());
            check(client, "ping data: ", new ToolRun(server.exitValue(), serverOut));
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void cClientAgainstJavaServer(Context ctx) throws Exception {
        String ip = ipAddress(ctx).getHostAddress();
        CompletableFuture<ToolRun> server = ToolRun.jrdma(List.of("rping", "-s", "-v", "-a", ip, "-p", "7182", "-S",
                Integer.toString(SIZE)));
        ToolRun client = ToolRun.untilListening(() -> ToolRun.process(List.of("rping", "-c", "-v", "-V", "-a", ip,
                "-p", "7182", "-C", Integer.toString(COUNT), "-S", Integer.toString(SIZE)), 120),
                RpingInteropDeviceTest::refused);
        check(client, "ping data: ", server.get(60, TimeUnit.SECONDS));
    }

    /** Both ended well, and both saw the client's pings 0..COUNT-1, in order, each with its C pattern. */
    public static void check(ToolRun client, String clientPrefix, ToolRun server) {
        String logs = "client:\n" + client.output() + "\nserver:\n" + server.output();
        assertEquals(0, client.status(), logs);
        assertEquals(0, server.status(), logs);
        assertEquals(expectedPings(), pings(client.output()), "the client's pings came back, each as sent\n" + logs);
        assertEquals(expectedPings(), pings(server.output()), "the server read every ping\n" + logs);
        assertTrue(client.output().contains(clientPrefix), logs);
    }

    /** What the C client sends: "rdma-ping-N: " then letters from 'A' + N, cycling 'A'..'z', to SIZE - 1 bytes. */
    private static List<String> expectedPings() {
        List<String> pings = new ArrayList<>();
        for (int n = 0; n < COUNT; n++) {
            StringBuilder b = new StringBuilder("rdma-ping-" + n + ": ");
            for (int c = 65 + n % 58; b.length() < SIZE - 1; c = c == 122 ? 65 : c + 1) {
                b.append((char) c);
            }
            pings.add(b.toString());
        }
        return pings;
    }

    private static List<String> pings(String output) {
        List<String> found = new ArrayList<>();
        Matcher m = PING.matcher(output);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    /** Whether rping's client found no one listening. */
    public static boolean refused(ToolRun client) {
        return client.output().contains("REJECTED");
    }
}
