package io.jrdma.tool.perf;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JitQuietTest {

    @Test
    void aCompilationInProgressOrQueuedIsBusy() {
        // Compiler.queue as JDK 25 prints it.
        assertTrue(JitQuiet.busy("""
                Current compiles:\s
                C2 CompilerThread0  1907       4       jdk.internal.util.xml.impl.Parser::bname (354 bytes)

                C1 compile queue:
                Empty

                C2 compile queue:
                Empty
                """));
        assertTrue(JitQuiet.busy("""
                Current compiles:\s

                C1 compile queue:
                Empty

                C2 compile queue:
                1888       4       java.util.ArrayList::add (25 bytes)
                """));
    }

    @Test
    void nothingCompilingNorQueuedIsIdle() {
        assertFalse(JitQuiet.busy("""
                Current compiles:\s

                C1 compile queue:
                Empty

                C2 compile queue:
                Empty


                """));
    }

    @Test
    void theQueueIsVisibleOnThisJvm() {
        // Without it the wait falls back to the compilation time, which misses a long compilation in progress.
        assertTrue(JitQuiet.DiagnosticQueue.find().isPresent());
    }
}
