package io.jrdma.tool.perf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JitQuietTest {

    @Test
    void theRunTimeIsTheFirstFieldOfSchedstat() {
        assertEquals(1416647L, CompilerThreads.leadingNumber(
                ByteBuffer.wrap("1416647 0 1\n".getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void theCompilerThreadsOfThisJvmAreFoundAndHaveRun() {
        // Without them the wait falls back to the compilation time, which misses a long compilation in progress.
        try (CompilerThreads threads = CompilerThreads.find()) {
            assertTrue(threads.count() >= 1, "no compiler thread found");
            assertTrue(threads.cpuNanos() > 0, "the compiler threads never ran");
        }
    }
}
