package io.jrdma.examples;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Waits, after a warm-up, until the JIT compilers have been idle for a while, so that a timed run measures the
 * compiled code alone. On a small or emulated machine the compiler threads share the cores with the measurement:
 * a profile of {@code jrdma perf write-bw} in the Soft-RoCE VM showed them on about a third of the samples of the
 * timed run when it started right after a 5,000-message warm-up.
 *
 * <pre>{@code
 * warmUp();
 * JitQuiet.await();
 * measure();
 * }</pre>
 */
final class JitQuiet {
    /** How long the JIT must have been idle. */
    private static final long QUIET_MILLIS = 2_000;
    /** The longest wait: a JIT that never settles does not hold the run forever. */
    private static final long MAX_MILLIS = 60_000;

    private JitQuiet() {
    }

    /** Sleeps until no compilation time accrued over 2 s, or a minute passed; at once on a JVM that cannot tell. */
    static void await() throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        long start = System.nanoTime();
        long before = jit.getTotalCompilationTime();
        while ((System.nanoTime() - start) / 1_000_000 < MAX_MILLIS) {
            Thread.sleep(QUIET_MILLIS);
            long now = jit.getTotalCompilationTime();
            if (now == before) {
                break;
            }
            before = now;
        }
    }
}
