package io.jrdma.tool.pingpong;

import io.jrdma.ibverbs.Endpoint;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PingPongHandshakeTest {
    /** ::ffff:10.0.2.15, a RoCE v2 GID. */
    private static final byte[] GID = HexFormat.of().parseHex("00000000000000000000ffff0a00020f");

    @Test
    void messagesAreTheCTextWithItsNul() {
        byte[] m = PingPongHandshake.encode(new Endpoint(0x12, 0x1a2b, 0xabcdef, GID));
        String text = "0012:001a2b:abcdef:00000000000000000000ffff0a00020f";
        assertEquals(52, m.length);
        assertEquals(text, new String(m, 0, 51, StandardCharsets.US_ASCII));
        assertEquals(0, m[51], "sizeof msg includes the NUL");
    }

    @Test
    void theWireGidIsTheGidBytesInOrder() {
        // gid_to_wire_gid prints htobe32 of each 4-byte word: on any host that is the bytes as they lie in memory.
        byte[] linkLocal = HexFormat.of().parseHex("fe800000000000005054fffe123456ff");
        byte[] message = PingPongHandshake.encode(new Endpoint(0, 17, 0, linkLocal));
        String text = new String(message, StandardCharsets.US_ASCII);
        assertEquals("0000:000011:000000:fe800000000000005054fffe123456ff\0", text);
        assertArrayEquals(linkLocal, PingPongHandshake.decode(text.getBytes(StandardCharsets.US_ASCII)).gid());
    }

    @Test
    void decodingInvertsEncoding() {
        Endpoint e = new Endpoint(0xffff, 0xffffff, 0, GID);
        assertEquals(e, PingPongHandshake.decode(PingPongHandshake.encode(e)));
        Endpoint zero = new Endpoint(0, 0, 0, new byte[16]);
        assertEquals(zero, PingPongHandshake.decode(
                "0000:000000:000000:00000000000000000000000000000000\0".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void malformedMessagesAreRefused() {
        byte[] shortGid = Arrays.copyOf("0000:000011:000000:fe80".getBytes(StandardCharsets.US_ASCII), 52);
        assertEquals("malformed pingpong message '0000:000011:000000:fe80'",
                assertThrows(IllegalArgumentException.class, () -> PingPongHandshake.decode(shortGid)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> PingPongHandshake.decode(new byte[28]));
    }

    @Test
    void clientWritesFirstServerConnectsBeforeAnsweringAndWaitsForDone() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        List<Endpoint> clientSide = List.of(new Endpoint(1, 0x11, 0x22, GID), new Endpoint(0, 0, 0, new byte[16]));
        List<Endpoint> serverSide = List.of(new Endpoint(2, 0x33, 0x44, GID), new Endpoint(3, 0x55, 0x66, GID));
        List<String> events = new ArrayList<>();
        CompletableFuture<List<Endpoint>> server = CompletableFuture.supplyAsync(() -> {
            try {
                return PingPongHandshake.asServer(port, serverSide, remote -> events.add("connect " + remote.size()));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        List<Endpoint> got = null;
        for (int attempt = 0; got == null; attempt++) {
            try {
                got = PingPongHandshake.asClient("127.0.0.1", port, clientSide);
            } catch (java.io.IOException notListeningYet) {
                if (attempt > 100) {
                    throw notListeningYet;
                }
                Thread.sleep(50);
            }
        }
        assertEquals(serverSide, got);
        assertEquals(clientSide, server.get(10, TimeUnit.SECONDS));
        assertEquals(List.of("connect 2"), events);
    }
}
