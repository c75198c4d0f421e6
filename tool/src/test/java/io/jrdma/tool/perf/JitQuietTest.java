package io.jrdma.tool.perf;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

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

    @Test
    void theWaitCollectsTheGarbageLeftBeforeIt() throws InterruptedException {
        long before = collections();
        JitQuiet.await();
        assertTrue(collections() > before, "no collection during the wait: the timed run would pay for the warm-up's");
    }

    private static long collections() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    @Test
    void settlingRunsTheWarmUpAgainAfterARunThatSetTheCompilersToWork() throws InterruptedException {
        AtomicInteger runs = new AtomicInteger();
        long[] sink = new long[1];
        // The first run makes a method of its own hot enough for both compilers; the later ones do nothing.
        JitQuiet.settle(n -> {
            if (runs.getAndIncrement() == 0) {
                for (int i = 0; i < n; i++) {
                    sink[0] += hot(i);
                }
            }
        }, 200_000);
        assertTrue(runs.get() >= 2, "a run that compiled was taken for a settled JIT: " + runs.get() + " run(s)");
    }

    private static long hot(int i) {
        return Long.rotateLeft(i * 0x9E3779B97F4A7C15L, i & 63);
    }
}
