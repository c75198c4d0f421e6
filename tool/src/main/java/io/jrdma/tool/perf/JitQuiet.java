package io.jrdma.tool.perf;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Waits, after a warm-up, until the JIT compilers have been idle for a while, so that a timed run measures the
 * compiled code alone. On a small or emulated machine the compiler threads share the cores with the measurement:
 * a profile of {@code jrdma perf write-bw} in the Soft-RoCE VM showed them on about a third of the samples of the
 * timed run when it started right after a 5,000-message warm-up.
 *
 * <p>Idle means: the compiler threads ran on no CPU (Linux's per-thread scheduler statistics) and no compilation
 * finished. The compilation time alone is not enough: it grows only when a compilation ends, and in an emulated VM
 * one C2 compilation can take seconds. Looking must not feed the JIT itself: a look is a few reads of small
 * {@code /proc} files into one buffer, and the wait makes so many looks up front that their code is compiled before
 * the quiet time starts (asking HotSpot's {@code Compiler.queue} through the platform MBean server, as this class
 * once did, compiled hundreds of JDK methods, some of them only after the wait had ended).
 *
 * <p>Before the quiet time, the wait also collects the garbage that the JVM's start, the warm-up and the looks left,
 * so that the timed run starts with an empty young generation and pays for no collection of what came before it. In
 * the Soft-RoCE VM a young collection of the JVM's default heap there (serial, some 17 MB) took 0.1 to 0.2 s (up to
 * 0.9 s with the host busy), and one came every 15 to 35 s, so one that fell in a timed run of some seconds cost it
 * 1% to several percent; a timed run that allocates enough still pays for its own.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=jit-quiet}
 */
public final class JitQuiet {
    /** How long the JIT must have been idle. */
    private static final long QUIET_MILLIS = 2_000;
    /** How often to look. */
    private static final long POLL_MILLIS = 250;
    /** The longest wait: a JIT that never settles does not hold the run forever. */
    private static final long MAX_MILLIS = 60_000;
    /** Looks made before waiting: more than C2's invocation threshold, so that looking compiles nothing later. */
    private static final int WARM_LOOKS = 20_000;
    /** The most warm-up runs {@link #settle} adds: a JIT that keeps compiling does not hold the run forever. */
    private static final int MAX_SETTLE_RUNS = 5;

    private JitQuiet() {
    }

    /**
     * Collects the garbage, then sleeps until the JIT was idle for 2 s, or a minute passed; on a JVM that cannot
     * tell, only collects.
     */
    public static void await() throws InterruptedException {
        await(true);
    }

    /**
     * {@link #await()}, with the looks made up front only if {@code warmLooks}: once made, the looking code is
     * compiled for the life of the JVM, so a wait after another needs none.
     */
    private static void await(boolean warmLooks) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            System.gc();
            return;
        }
        try (CompilerThreads threads = CompilerThreads.find()) {
            for (int i = 0; warmLooks && i < WARM_LOOKS; i++) {
                jit.getTotalCompilationTime();
                threads.cpuNanos();
            }
            // Before the quiet time, which then also covers whatever the collection sets the compilers to do.
            System.gc();
            long start = System.nanoTime();
            long quietSince = start;
            long compiled = jit.getTotalCompilationTime();
            long cpu = threads.cpuNanos();
            while (millisSince(start) < MAX_MILLIS && millisSince(quietSince) < QUIET_MILLIS) {
                Thread.sleep(POLL_MILLIS);
                long nowCompiled = jit.getTotalCompilationTime();
                long nowCpu = threads.cpuNanos();
                if (nowCompiled != compiled || nowCpu != cpu) {
                    quietSince = System.nanoTime();
                }
                compiled = nowCompiled;
                cpu = nowCpu;
            }
        }
    }

    /**
     * Waits for a quiet JIT ({@link #await}), then runs {@code run} for {@code iterations} and waits again, until a
     * run and the wait after it found the compilers idle throughout, or five runs were made.
     * Quiet is not yet warm: when the compilers fall behind during a warm-up, HotSpot compiles hot methods at a
     * lesser tier first (C1 with little profiling) and moves them up only when they run again, so after the quiet
     * the timed run itself would set the compilers to work (in the Soft-RoCE VM, the compilers took 43% of a pipelined
     * echo's client vCPU during its timed run after 20 s of warm-up and 2 s of quiet). The runs are as long as the
     * timed run: a shorter one may compile nothing while the invocation counters of code it runs once per batch climb
     * toward a threshold that the timed run then crosses. Only for a run whose peer does not count its runs: this
     * makes more of them.
     *
     * @param run        the timed run's own code
     * @param iterations the timed run's iterations
     * @param <E>        what the run throws
     * @throws E                    if the run does
     * @throws InterruptedException if interrupted while waiting for the JIT
     */
    public static <E extends Exception> void settle(Warmup.Part<E> run, int iterations)
            throws E, InterruptedException {
        await();
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        try (CompilerThreads threads = CompilerThreads.find()) {
            for (int i = 0; i < MAX_SETTLE_RUNS; i++) {
                long compiled = jit.getTotalCompilationTime();
                long cpu = threads.cpuNanos();
                run.run(iterations);
                await(false);
                if (jit.getTotalCompilationTime() == compiled && threads.cpuNanos() == cpu) {
                    return;
                }
            }
        }
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
