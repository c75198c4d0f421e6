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
 * long waited = JitQuiet.await(500, 60_000);
 * measure();
 * }</pre>
 */
final class JitQuiet {
    private JitQuiet() {
    }

    /**
     * Sleeps until no compilation time accrued over {@code quietMillis}, or {@code maxMillis} passed.
     *
     * @return the milliseconds waited, or -1 if this JVM does not report its compilation time
     */
    static long await(long quietMillis, long maxMillis) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return -1;
        }
        long start = System.nanoTime();
        long before = jit.getTotalCompilationTime();
        while ((System.nanoTime() - start) / 1_000_000 < maxMillis) {
            Thread.sleep(quietMillis);
            long now = jit.getTotalCompilationTime();
            if (now == before) {
                break;
            }
            before = now;
        }
        return (System.nanoTime() - start) / 1_000_000;
    }
}
