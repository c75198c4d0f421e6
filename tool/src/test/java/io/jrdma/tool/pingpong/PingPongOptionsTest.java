package io.jrdma.tool.pingpong;

import io.jrdma.tool.pingpong.PingPongOptions.Variant;
import io.jrdma.ibverbs.Mtu;
import io.jrdma.tool.Jrdma;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PingPongOptionsTest {

    private static PingPongOptions parse(String... args) {
        ParseResult parsed = PingPongCommand.commandLine(null, null).parseArgs(args);
        return ((PingPongCommand.VariantCommand) parsed.subcommand().commandSpec().userObject()).options();
    }

    private static String refusal(String... args) {
        return assertThrows(ParameterException.class, () -> parse(args)).getMessage();
    }

    @Test
    void defaultsAreThoseOfTheCExamples() {
        PingPongOptions rc = parse("rc");
        assertEquals(Variant.RC, rc.variant());
        assertEquals(18515, rc.port());
        assertNull(rc.device());
        assertEquals(1, rc.ibPort());
        assertEquals(4096, rc.size());
        assertEquals(Mtu.MTU_1024, rc.mtu());
        assertEquals(500, rc.rxDepth());
        assertEquals(1000, rc.iters());
        assertEquals(0, rc.serviceLevel());
        assertFalse(rc.events());
        assertEquals(-1, rc.gidIndex());
        assertFalse(rc.validate());
        assertEquals(1, rc.queuePairs());
        assertNull(rc.server(), "no operand: the server side");
        assertEquals(1024, parse("ud").size(), "ud_pingpong's default size");
        assertEquals(16, parse("srq").queuePairs());
    }

    @Test
    void everyOptionInShortAndLongForm() {
        PingPongOptions o = parse("srq", "-p", "20000", "-d", "rxe0", "-i", "2", "-s", "0x100", "-m", "2048",
                "-q", "4", "-r", "64", "-n", "300", "-l", "3", "-e", "-g", "1", "-c", "10.0.2.15");
        assertEquals(new PingPongOptions(Variant.SRQ, 20000, "rxe0", 2, 256, Mtu.MTU_2048, 64, 300, 3, true, 1, true,
                4, "10.0.2.15"), o);
        PingPongOptions l = parse("srq", "--port=20000", "--ib-dev", "rxe0", "--ib-port=2", "--size=256",
                "--mtu=2048", "--num-qp=4", "--rx-depth=64", "--iters", "300", "--sl=3", "--events", "--gid-idx=1",
                "--chk", "10.0.2.15");
        assertEquals(o, l);
    }

    @Test
    void getoptConventions() {
        PingPongOptions o = parse("rc", "server", "-ceg1", "-n200", "-p", "020");
        assertEquals("server", o.server(), "operands may come first");
        assertTrue(o.validate());
        assertTrue(o.events());
        assertEquals(1, o.gidIndex(), "a value attached to bundled flags");
        assertEquals(200, o.iters());
        assertEquals(16, o.port(), "a leading 0 is octal, as strtol(..., 0) reads it");
        assertEquals("-host", parse("uc", "--", "-host").server(), "-- ends the options");
    }

    @Test
    void optionsAVariantDoesNotHaveAreRefused() {
        assertEquals("Unknown option: '-m'", refusal("ud", "-m", "1024"));
        assertEquals("Unknown option: '-q'", refusal("rc", "-q", "2"));
        assertEquals("Unknown option: '--odp'", refusal("uc", "--odp"));
        assertEquals("Unknown option: '-x'", refusal("rc", "-x"));
        assertTrue(refusal("xrc").contains("'xrc'"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true);
        assertEquals(2, Jrdma.run(List.of("pingpong", "xrc"), e, e));
        assertTrue(err.toString().startsWith("jrdma pingpong: unknown command 'xrc'\n"), err.toString());
    }

    @Test
    void cOptionsJrdmaDoesNotImplementAreRefusedByName() {
        assertEquals("-o (on-demand paging) is not supported by jrdma", refusal("rc", "-o"));
        assertEquals("-o (on-demand paging) is not supported by jrdma", refusal("srq", "--odp"));
        assertTrue(refusal("rc", "-t").contains("completion timestamps"));
        assertTrue(refusal("rc", "-j").contains("device memory"));
        assertTrue(refusal("rc", "-N").contains("new post send API"));
        assertTrue(refusal("rc", "-O").contains("implicit on-demand paging"));
        assertTrue(refusal("rc", "-P").contains("prefetch"));
    }

    @Test
    void badValuesAreRefused() {
        assertEquals("-p must be 1 to 65535, not 70000", refusal("rc", "-p", "70000"));
        assertEquals("Invalid value for option '--iters': 'many' is not a number", refusal("rc", "-n", "many"));
        assertEquals("-m must be 256, 512, 1024, 2048 or 4096, not 1000", refusal("rc", "-m", "1000"));
        assertEquals("-i must be 1 to 255, not 0", refusal("rc", "-i", "0"));
        assertEquals("-s must be 1 to 2147483647, not 0", refusal("rc", "-s", "0"));
        assertEquals("-l must be 0 to 15, not 16", refusal("rc", "-l", "16"));
        assertEquals("Missing required parameter for option '--gid-idx' (<gid index>)", refusal("rc", "-g"));
        assertEquals("Invalid value for option '--chk': '1' is not a boolean", refusal("rc", "--chk=1"));
        assertEquals("one server at most, not [a, b]", refusal("rc", "a", "b"));
        assertEquals("-q must be 1 to 255, not 256", refusal("srq", "-q", "256"));
        assertEquals("rx_depth 8 is too small for 16 QPs -- must have at least one receive per QP",
                refusal("srq", "-r", "8"));
    }

    @Test
    void jrdmaRunsPingpongAndRefusesBadOptionsBeforeTouchingAnyDevice() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true);
        PrintStream e = new PrintStream(err, true);
        assertEquals(2, Jrdma.run(List.of("pingpong", "ud", "-m", "1024"), o, e));
        assertTrue(err.toString().startsWith("jrdma pingpong ud: Unknown option: '-m'\n"), err.toString());
        assertEquals(0, Jrdma.run(List.of("pingpong", "srq", "-h"), o, e));
        assertTrue(out.toString().contains("-q, --num-qp=<num>"), out.toString());
        assertEquals(0, Jrdma.run(List.of("--help"), o, e));
        assertTrue(out.toString().contains("pingpong       Ping-pong SENDs"), out.toString());
    }
}
