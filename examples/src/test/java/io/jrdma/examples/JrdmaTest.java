package io.jrdma.examples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;

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
        assertTrue(err.toString().startsWith("jrdma: unknown command 'frobnicate'"), err.toString());
    }

    @Test
    void badOptionIsRefusedBeforeTouchingAnyDevice() {
        assertEquals(2, run("devices", "-x"));
        assertEquals("jrdma: devices: unknown option '-x'\n", err.toString());
        assertEquals(2, run("devices", "-d"));
        assertTrue(err.toString().contains("-d needs a device name"), err.toString());
    }

    @Test
    void helpListsTheCommands() {
        assertEquals(0, run("--help"));
        assertTrue(out.toString().contains("devices [-v]"), out.toString());
    }
}
