package io.jrdma.nativetest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The external commands the native tests build and run: their output, their failures, their time limit. */
class CommandTest {

    @Test
    void aCommandThatHangsIsKilledOnceItsTimeoutPasses(@TempDir Path dir) {
        long start = System.nanoTime();
        IOException e = assertThrows(IOException.class, () -> Command.run(dir,
                List.of("sh", "-c", "echo started; exec sleep 60"), Duration.ofMillis(300)));
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(20).toNanos(), "the timeout fired late");
        assertTrue(e.getMessage().contains("did not finish within PT0.3S; killed it"), e.getMessage());
        assertTrue(e.getMessage().contains("started"), e.getMessage());
    }

    @Test
    void aFailureCarriesItsStatusAndOutput(@TempDir Path dir) {
        IOException e = assertThrows(IOException.class, () -> Command.run(dir,
                List.of("sh", "-c", "echo broken >&2; exit 3"), Duration.ofSeconds(30)));
        assertTrue(e.getMessage().contains("failed with exit status 3"), e.getMessage());
        assertTrue(e.getMessage().contains("broken"), e.getMessage());
    }

    @Test
    void aSuccessReturnsStandardOutputAndErrorTogether(@TempDir Path dir) throws Exception {
        assertEquals("out\nerr\n", Command.run(dir, List.of("sh", "-c", "echo out; echo err >&2"),
                Duration.ofSeconds(30)));
    }
}
