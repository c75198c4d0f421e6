package io.jrdma.tool.perf;

import io.jrdma.tool.Jrdma;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlocksOptionsTest {

    private static BlocksOptions parse(String... args) {
        return Parsed.blocks(List.of(args));
    }

    private static String refusal(String... args) {
        return assertThrows(ParameterException.class, () -> parse(args)).getMessage();
    }

    private static String usage() {
        return new CommandLine(new BlocksCommand(null, null)).getUsageMessage();
    }

    @Test
    void defaults() {
        BlocksOptions o = parse();
        assertEquals(List.of(new BlockLayout(4096, 16, 8192)), o.layouts());
        assertEquals(List.of(BlocksMode.WRITE, BlocksMode.READ, BlocksMode.SEND), o.modes());
        assertEquals(BlocksCommand.DEFAULT_ITERATIONS, o.iterations());
        assertEquals(BlocksCommand.DEFAULT_WARMUP, o.warmup());
        assertEquals(18515, o.tcpPort());
        assertNull(o.server());
        assertFalse(o.client());
        assertFalse(o.json());
    }

    @Test
    void everyBlockSizeRunsWithEveryCount() {
        BlocksOptions o = parse("--block-size", "64,1024", "--blocks=4,32", "-m", "send,write", "-n", "10",
                "--warmup=0", "-x", "1", "-d", "rxe0", "-p", "19000", "--json", "10.0.2.15");
        assertEquals(List.of(new BlockLayout(64, 4, 128), new BlockLayout(64, 32, 128), new BlockLayout(1024, 4, 2048),
                new BlockLayout(1024, 32, 2048)), o.layouts());
        assertEquals(List.of(BlocksMode.SEND, BlocksMode.WRITE), o.modes());
        assertEquals(32, o.maxBlocks());
        assertEquals(new BlockLayout(1024, 32, 2048).extent(), o.maxExtent());
        assertEquals(10, o.iterations());
        assertEquals(0, o.warmup());
        assertEquals(1, o.gidIndex());
        assertEquals("rxe0", o.device());
        assertEquals("10.0.2.15", o.server());
        assertTrue(o.json());
        PerfOptions link = o.link();
        assertEquals("10.0.2.15", link.server());
        assertEquals(19000, link.tcpPort());
        assertEquals(1, link.gidIndex());
        assertEquals("rxe0", link.device());
    }

    @Test
    void aStrideIsAbsoluteAndMayEqualTheBlockSize() {
        assertEquals(List.of(new BlockLayout(100, 3, 100)),
                parse("--block-size", "100", "--blocks", "3", "--stride", "100").layouts());
        assertEquals(List.of(new BlockLayout(64, 2, 1000), new BlockLayout(512, 2, 1000)),
                parse("--block-size", "64,512", "--blocks", "2", "--stride=1000").layouts());
    }

    @Test
    void zeroOrNegativeSizesAreRefused() {
        assertEquals("--block-size must be 1 to 1073741824, not '0'", refusal("--block-size", "0"));
        assertEquals("--block-size must be 1 to 1073741824, not '-64'", refusal("--block-size", "-64"));
        assertEquals("--blocks must be 1 to 1024, not '0'", refusal("--blocks", "0"));
        assertEquals("--stride must be 1 to 1073741824, not -1", refusal("--stride=-1"));
        assertEquals("--blocks must be 1 to 1024, not ''", refusal("--blocks", "4,,8"));
        assertEquals("--block-size must be 1 to 1073741824, not 'x'", refusal("--block-size", "x"));
    }

    @Test
    void aStrideShorterThanABlockIsRefused() {
        assertEquals("--stride 100 is less than --block-size 200: the blocks would overlap",
                refusal("--block-size", "200", "--stride", "100"));
        assertEquals("--stride 100 is less than --block-size 200: the blocks would overlap",
                refusal("--block-size", "64,200", "--stride", "100"));
    }

    @Test
    void layoutsThatOverflowAreRefused() {
        assertEquals("--block-size must be 1 to 1073741824, not '4294967296'",
                refusal("--block-size", "4294967296"));
        assertEquals("1024 blocks 1073741824 bytes apart span 1098437886016 bytes; at most 1073741824 (1 GiB)",
                refusal("--block-size", "64", "--blocks", "1024", "--stride", "1073741824"));
        assertEquals("the default stride, twice --block-size 1073741824, is more than 1 GiB: give --stride",
                refusal("--block-size", "1073741824"));
        assertEquals("2 blocks 600000000 bytes apart span 1200000000 bytes; at most 1073741824 (1 GiB)",
                refusal("--block-size", "600000000", "--blocks", "2", "--stride", "600000000"));
    }

    @Test
    void moreBlocksThanTheDeviceScattersAreRefusedNamingItsLimit() {
        BlocksOptions o = parse("--blocks", "4,33");
        assertEquals("--blocks 33 is more than rxe0 takes in one write work request (max_sge 32): give at "
                + "most 32 blocks", assertThrows(IllegalArgumentException.class,
                () -> o.checkDevice("rxe0", 32, 32)).getMessage());
        BlocksOptions read = parse("--blocks", "20", "-m", "read");
        assertEquals("--blocks 20 is more than mlx5_0 takes in one read work request (max_sge_rd 16): give "
                + "at most 16 blocks", assertThrows(IllegalArgumentException.class,
                () -> read.checkDevice("mlx5_0", 30, 16)).getMessage());
        assertDoesNotThrow(() -> parse("--blocks", "32").checkDevice("rxe0", 32, 32));
    }

    @Test
    void badModesOptionsAndOperandsAreRefused() {
        assertEquals("--mode takes write, read and send, not 'atomic'", refusal("-m", "write,atomic"));
        assertEquals("--mode names send twice", refusal("--mode", "send,send"));
        assertEquals("--blocks names 4 twice", refusal("--blocks", "4,4"));
        assertEquals("Unknown option: '--size'", refusal("--size", "64"));
        assertEquals("Unknown option: '--strides=4'", refusal("--strides=4"));
        assertEquals("Missing required parameter for option '--stride' (<bytes>)", refusal("--stride"));
        assertEquals("one server at most, not [a, b]", refusal("a", "b"));
        assertEquals("-n must be 5 to 100000000, not 4", refusal("-n", "4"));
    }

    @Test
    void sidesWithOtherLayoutsRefuseEachOther() {
        assertFalse(parse("--blocks", "4").setup().equals(parse("--blocks", "8", "host").setup()));
        assertFalse(parse("--stride", "9000").setup().equals(parse("host").setup()));
        assertEquals(parse("-n", "7").setup(), parse("-n", "7", "host").setup());
    }

    @Test
    void theToolListsTheCommandAndRefusesABadLayoutInOneLine() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(2, Jrdma.run(List.of("blocks", "--block-size", "200", "--stride", "100"), o, e));
        assertEquals("jrdma blocks: --stride 100 is less than --block-size 200: the blocks would overlap\n"
                + "Try 'jrdma blocks --help' for more information.\n",
                err.toString(StandardCharsets.UTF_8));
        assertEquals(0, Jrdma.run(List.of("blocks", "-h"), o, e));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("Usage: jrdma blocks"));
        assertEquals(0, Jrdma.run(List.of("--help"), o, e));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("  blocks         Strided blocks"));
    }

    @Test
    void usageNamesTheLayoutOptionsAndTheModes() {
        String usage = usage();
        for (String s : List.of("--block-size", "--blocks", "--stride", "--mode", "gather WRITE", "scatter READ",
                "gather SEND into scatter RECV", "max_sge")) {
            assertTrue(usage.contains(s), s);
        }
    }
}
