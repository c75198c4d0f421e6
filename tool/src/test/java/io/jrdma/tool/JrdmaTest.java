package io.jrdma.tool;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JrdmaTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Jrdma.run(List.of(args), new PrintStream(out, true), new PrintStream(err, true));
    }

    @Test
    void unknownCommandIsOneClearLineAndExitTwo() {
        assertEquals(2, run("frobnicate"));
        assertEquals("jrdma: unknown command 'frobnicate'\nTry 'jrdma --help' for more information.\n", err.toString());
    }

    @Test
    void bareJrdmaIsTheUsageOnStderrAndExitTwo() {
        assertEquals(2, run());
        assertTrue(err.toString().startsWith("Usage: jrdma"), err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void versionIsTheBuildsVersion() {
        assertEquals(0, run("--version"));
        assertTrue(out.toString().matches("jrdma \\d+\\.\\d+\\.\\d+.*\n"), out.toString());
    }

    @Test
    void everyCommandHasItsHelp() {
        for (List<String> help : List.of(List.of("devices", "-h"), List.of("demo", "--help"), List.of("hello", "-h"),
                List.of("pingpong", "-h"), List.of("pingpong", "ud", "-h"), List.of("rping", "-h"),
                List.of("perf", "-h"), List.of("blocks", "-h"), List.of("stream", "-h"))) {
            out.reset();
            assertEquals(0, Jrdma.run(help, new PrintStream(out, true), new PrintStream(err, true)), help.toString());
            assertTrue(out.toString().startsWith("Usage: jrdma " + help.getFirst()), out.toString());
        }
        assertEquals("", err.toString());
    }

    @Test
    void badOptionIsRefusedBeforeTouchingAnyDevice() {
        assertEquals(2, run("devices", "-x"));
        assertEquals("jrdma devices: Unknown option: '-x'\nTry 'jrdma devices --help' for more information.\n",
                err.toString());
        assertEquals(2, run("devices", "-d"));
        assertTrue(err.toString().contains("Missing required parameter for option '--ib-dev' (<dev>)"),
                err.toString());
    }

    @Test
    void gidsPrintLikeIbvDevinfo() {
        byte[] v4 = new byte[16];
        v4[10] = (byte) 0xff;
        v4[11] = (byte) 0xff;
        v4[12] = 10;
        v4[15] = 15;
        assertEquals("::ffff:10.0.0.15", GidFormat.format(v4));
        byte[] linkLocal = new byte[16];
        linkLocal[0] = (byte) 0xfe;
        linkLocal[1] = (byte) 0x80;
        linkLocal[8] = 0x50;
        linkLocal[9] = 0x54;
        linkLocal[15] = 0x56;
        assertEquals("fe80::5054:0:0:56", GidFormat.format(linkLocal));
        assertEquals("::", GidFormat.format(new byte[16]));
    }

    @Test
    void helpListsTheCommands() {
        assertEquals(0, run("--help"));
        assertTrue(out.toString().contains("  devices        List RDMA devices"), out.toString());
    }

    @Test
    void demoOptionsAreCheckedBeforeTouchingAnyDevice() {
        assertEquals(2, run("demo", "-n", "0"));
        assertTrue(err.toString().contains("jrdma demo: -n must be 1 to 2147483647, not 0"), err.toString());
        assertEquals(2, run("demo", "--frob"));
        assertTrue(err.toString().contains("jrdma demo: Unknown option: '--frob'"), err.toString());
    }

    @Test
    void latenciesReportMedianP99AndMax() {
        long[] nanos = new long[100];
        for (int i = 0; i < 100; i++) {
            nanos[i] = (100 - i) * 1000L;
        }
        assertEquals("median 51.0 us, p99 99.0 us, max 100.0 us", Latencies.of(nanos).toString());
    }

    @Test
    void numbersPrintTheSameUnderAGermanDefaultLocale() {
        Locale before = Locale.getDefault();
        Locale.setDefault(Locale.GERMANY);
        try {
            assertEquals("median 1.5 us, p99 1.5 us, max 1.5 us", Latencies.of(new long[] {1500}).toString());
            assertEquals(2, run("perf", "write-lat", "-n", "1234567890"));
            assertTrue(err.toString().contains("-n must be 5 to 100000000, not 1234567890"), err.toString());
        } finally {
            Locale.setDefault(before);
        }
    }

    @Test
    void rpingNeedsARoleAndTheClientAnAddress() {
        assertEquals(2, run("rping", "-v"));
        assertTrue(err.toString().contains("say -s (server) or -c (client)"), err.toString());
        assertEquals(2, run("rping", "-c"));
        assertTrue(err.toString().contains("the client needs the server's address"), err.toString());
        assertEquals(2, run("rping", "-c", "-a", "127.0.0.1", "-S", "10"));
        assertTrue(err.toString().contains("jrdma rping: -S must be 26 to 65535, not 10"), err.toString());
    }

    @Test
    void rstreamRefusesABufferRsocketsCannotHaveBeforeTouchingAnyDevice() {
        assertEquals(2, run("rstream", "-b", "127.0.0.1", "-B", "1000"));
        assertTrue(err.toString().contains("jrdma rstream: -B 1000 gives rsockets buffers of 2000 bytes: "),
                err.toString());
        assertTrue(err.toString().contains("multiple of 4 KiB"), err.toString());
    }

    @Test
    void rpingFillsItsBufferAsTheCClientDoes() {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment buf = arena.allocate(32);
            RpingCommand.fill(buf, 3, 121);
            assertEquals("rdma-ping-3: yzABCDEFGHIJKLMNOP", RpingCommand.cString(buf));
        }
    }

    @Test
    void helloRefusesWhatItDoesNotKnow() {
        assertEquals(2, run("hello", "-g", "256"));
        assertTrue(err.toString().contains("jrdma hello: -g must be -1 to 255, not 256"), err.toString());
        assertEquals(2, run("hello", "host-a", "host-b"));
        assertTrue(err.toString().contains("jrdma hello: Unmatched argument at index 2: 'host-b'"), err.toString());
        assertEquals(2, run("hello", "-p"));
        assertTrue(err.toString().contains("jrdma hello: Missing required parameter for option '-p' (<port>)"),
                err.toString());
    }
}
