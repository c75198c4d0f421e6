package io.jrdma.tool.perf;

import io.jrdma.tool.Jrdma;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerfOptionsTest {

    private static PerfOptions parse(String... args) {
        return Parsed.perf(List.of(args));
    }

    private static String refusal(String... args) {
        return assertThrows(ParameterException.class, () -> parse(args)).getMessage();
    }

    @Test
    void defaultsAreThoseOfPerftest() {
        PerfOptions lat = parse("write-lat");
        assertEquals(new PerfTest(PerfTest.Verb.WRITE, true), lat.test());
        assertEquals(List.of(2), lat.sizes());
        assertEquals(1000, lat.iterations());
        assertEquals(18515, lat.tcpPort());
        assertEquals(1, lat.txDepth());
        assertEquals(220, lat.inlineSize());
        assertNull(lat.server());
        assertNull(lat.gidIndex());
        PerfOptions bw = parse("read-bw");
        assertEquals(List.of(65536), bw.sizes());
        assertEquals(5000, bw.iterations());
        assertEquals(128, bw.txDepth());
        assertEquals(0, bw.inlineSize());
        assertEquals(236, parse("send-lat").inlineSize());
    }

    @Test
    void theWarmupIsUntimedIterationsPerSize() {
        assertEquals(PerfOptions.DEFAULT_WARMUP, parse("write-lat").warmup());
        assertEquals(PerfOptions.DEFAULT_WARMUP, parse("write-bw").warmup());
        assertEquals(0, parse("write-lat", "--warmup", "0").warmup());
        assertEquals(300, parse("send-bw", "--warmup=300", "-n", "1000").warmup());
        assertEquals(1000, parse("send-bw", "--warmup=300", "-n", "1000").iterations());
        assertEquals(20, parse("write-lat", "-D", "2", "--warmup", "20").warmup());
        assertEquals("Missing required parameter for option '--warmup' (<iters>)", refusal("write-lat", "--warmup"));
        assertEquals("--warmup must be 0 to 1000000, not -1", refusal("write-lat", "--warmup", "-1"));
        assertEquals("Invalid value for option '--warmup': 'x' is not an int", refusal("write-lat", "--warmup=x"));
        assertTrue(new CommandLine(new PerfCommand(null, null)).getUsageMessage().contains("--warmup=<iters>"));
    }

    @Test
    void sizesListsSizesInOrderEachWithItsOwnCount() {
        PerfOptions o = parse("write-bw", "--sizes", "4096:16384,64:50000,1048576", "-n", "300");
        assertEquals(List.of(4096, 64, 1048576), o.sizes());
        assertEquals(16384, o.iterations(4096));
        assertEquals(50000, o.iterations(64));
        assertEquals(300, o.iterations(1048576));
        assertTrue(o.noPeak(), "above 20000 iterations perftest leaves the peak out, for every size");
        assertEquals(50000, o.mostIterations(), "what the stamps must hold: the largest count or warm-up");
        assertEquals(List.of(2, 8), parse("write-lat", "--sizes=2,8").sizes());
        assertFalse(parse("write-lat", "--sizes=2,8").setup().equals(parse("write-lat", "--sizes=2:9,8").setup()));
        assertEquals("-s, -a and --sizes each choose the sizes: give one of them",
                refusal("write-lat", "--sizes", "2", "-s", "2"));
        assertEquals("--sizes names 2 twice", refusal("write-lat", "--sizes", "2,8,2"));
        assertEquals("--sizes takes SIZE or SIZE:ITERS items, not '2:5:5'", refusal("write-lat", "--sizes=2:5:5"));
        assertEquals("--sizes must be 1 to 8388608, not ''", refusal("write-lat", "--sizes=2,,8"));
        assertEquals("--sizes must be 5 to 100000000, not '1'", refusal("write-lat", "--sizes=2:1"));
        assertEquals("-D runs for a time: --sizes takes no counts with it",
                refusal("write-bw", "-D", "2", "--sizes=64:100"));
        assertEquals("atomics are 8 bytes: no --sizes", refusal("atomic-lat", "--sizes=8"));
    }

    @Test
    void aWarmupMovesAtMost64MibPerSize() {
        PerfOptions o = parse("write-bw", "--sizes", "64,1048576", "--warmup", "100000");
        assertEquals(100000, o.warmup(64));
        assertEquals(64, o.warmup(1048576));
        assertEquals(8, parse("write-bw", "-s", "8388608", "--warmup", "100").warmup(8388608));
        assertEquals(0, parse("write-bw", "--warmup", "0").warmup(65536));
        assertEquals(1024, parse("write-lat", "-s", "65536", "--warmup", "100000").warmup(65536));
        assertEquals(20000, parse("write-lat", "-s", "512").warmup(512));
    }

    @Test
    void sidesWithDifferentWarmupsRefuseEachOther() {
        PerfOptions server = parse("write-lat", "--warmup", "100");
        PerfOptions client = parse("write-lat", "--warmup", "200", "host");
        assertFalse(server.setup().equals(client.setup()));
        assertEquals(server.setup(), parse("write-lat", "--warmup", "100", "host").setup());
        // What the exchange does: the client's setup hash against the server's.
        byte[] fromClient = new PerfPeer(client.setup().hashCode(), 0x1000, 0x42, null).toBytes();
        assertTrue(assertThrows(IllegalStateException.class,
                () -> PerfPeer.fromBytes(fromClient, server.setup().hashCode(), false))
                .getMessage().contains("--warmup"));
    }

    @Test
    void everyMainOptionIsTaken() {
        PerfOptions o = parse("send-bw", "-d", "rxe0", "-i", "2", "-x", "1", "-s", "4096", "-n", "200", "-p",
                "18701", "--report_gbits", "-R", "-t", "64", "-I", "64", "-F", "--json", "10.0.2.15");
        assertEquals("rxe0", o.device());
        assertEquals(2, o.ibPort());
        assertEquals(1, o.gidIndex());
        assertEquals(List.of(4096), o.sizes());
        assertEquals(200, o.iterations());
        assertEquals(18701, o.tcpPort());
        assertTrue(o.reportGbits());
        assertTrue(o.rdmaCm());
        assertEquals(64, o.txDepth());
        assertEquals(64, o.inlineSize());
        assertTrue(o.json());
        assertEquals("10.0.2.15", o.server());
        assertTrue(o.client());
    }

    @Test
    void longOptionsTakeTheirValueAttachedOrAfter() {
        PerfOptions o = parse("write-bw", "--size=128", "--iters", "10", "--ib-dev=mlx5_0", "--rdma_cm");
        assertEquals(List.of(128), o.sizes());
        assertEquals(10, o.iterations());
        assertEquals("mlx5_0", o.device());
        assertTrue(o.rdmaCm());
    }

    @Test
    void thePeakIsLeftOutOnRequestOrAbovePerftestsLimit() {
        assertFalse(parse("write-bw", "-n", "20000").noPeak());
        assertTrue(parse("write-bw", "-N").noPeak());
        assertTrue(parse("write-bw", "--noPeak").noPeak());
        assertTrue(parse("write-bw", "-n", "20001").noPeak());
    }

    @Test
    void allSizesRunFromTwoToEightMegabytes() {
        List<Integer> sizes = parse("write-bw", "-a").sizes();
        assertEquals(23, sizes.size());
        assertEquals(2, sizes.getFirst());
        assertEquals(1 << 23, sizes.getLast());
        assertEquals(List.of(8), parse("atomic-bw", "-a").sizes());
    }

    @Test
    void durationModeRunsForSeconds() {
        PerfOptions o = parse("write-lat", "-D", "3");
        assertEquals(3, o.seconds());
        assertFalse(o.client());
    }

    @Test
    void refusalsNameTheOptionAndTheRule() {
        assertTrue(refusal("frob-lat").contains("unknown test 'frob-lat'"));
        assertTrue(refusal("write").contains("unknown test 'write'"));
        assertEquals("Unknown option: '-q'", refusal("write-lat", "-q"));
        assertEquals("Unknown option: '--frob'", refusal("write-lat", "--frob"));
        assertEquals("Missing required parameter for option '--iters' (<iters>)", refusal("write-lat", "-n"));
        assertEquals("-n must be 5 to 100000000, not 2", refusal("write-lat", "-n", "2"));
        assertEquals("-s must be 1 to 8388608, not 9000000", refusal("write-bw", "-s", "9000000"));
        assertEquals("Invalid value for option '--port': 'x' is not an int", refusal("write-bw", "-p", "x"));
        assertTrue(refusal("write-bw", "-a", "-s", "64").contains("-s, -a and --sizes each choose the sizes"));
        assertTrue(refusal("write-bw", "-D", "2", "-n", "10").contains("give one of them"));
        assertTrue(refusal("atomic-lat", "-s", "64").contains("atomics are 8 bytes"));
        assertTrue(refusal("send-lat", "-t", "4").contains("-t must be 1"));
        assertTrue(refusal("write-lat", "a", "b").contains("one server at most"));
        assertEquals("Missing required parameter: 'TEST'", refusal());
    }

    @Test
    void bothSidesMustAgreeOnTheSetup() {
        assertEquals(parse("write-bw", "-s", "64").setup(), parse("write-bw", "-s", "64", "host").setup());
        assertFalse(parse("write-bw", "-s", "64").setup().equals(parse("write-bw", "-s", "128").setup()));
        PerfPeer peer = new PerfPeer(17, 0x1000, 0x42, null);
        assertEquals(peer, PerfPeer.fromBytes(peer.toBytes(), 17, false));
        assertTrue(assertThrows(IllegalStateException.class, () -> PerfPeer.fromBytes(peer.toBytes(), 18, false))
                .getMessage().contains("both sides need the same"));
    }

    @Test
    void theToolListsPerfAndItsHelp() throws Exception {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream out = new java.io.PrintStream(bytes, true);
        assertEquals(0, Jrdma.run(List.of("perf", "-h"), out, out));
        assertTrue(bytes.toString().contains("--report_gbits"), bytes.toString());
        bytes.reset();
        assertEquals(2, Jrdma.run(List.of("perf", "write-lat", "-n", "1"), out, out));
        assertEquals("jrdma perf: -n must be 5 to 100000000, not 1\nTry 'jrdma perf --help' for more information.\n",
                bytes.toString());
    }
}
