package io.jrdma.tool.perf;

/**
 * A warm-up in parts, then a wait for the JIT to settle ({@link JitQuiet}). The end of a loop takes a branch its
 * middle never does, which the JIT compiles as a trap: the first time a warm-up loop ends, its compiled code is
 * thrown away. Run once, the warm-up leaves the timed run to start interpreted and to be compiled again while it
 * runs (at one message in flight, {@code jrdma endpoint-perf}'s client spent a quarter of its vCPU in the compilers
 * during its measured run); run in parts, the later parts are compiled with the end in their profile.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=warmup}
 */
public final class Warmup {
    /** The parts a warm-up runs in. */
    static final int PARTS = 4;

    private Warmup() {
    }

    /**
     * One part of a warm-up: the timed run's own loop, for fewer iterations.
     *
     * @param <E> what the loop throws
     */
    public interface Part<E extends Exception> {
        /** Runs {@code n} iterations. */
        void run(int n) throws E;
    }

    /**
     * Runs {@code iterations} untimed iterations in parts, then waits until the JIT was idle for a while.
     *
     * @param iterations the warm-up's iterations (0: none, and no wait)
     * @param part       the loop
     * @param <E>        what the loop throws
     * @throws E                    if the loop does
     * @throws InterruptedException if interrupted while waiting for the JIT
     */
    public static <E extends Exception> void run(int iterations, Part<E> part) throws E, InterruptedException {
        if (iterations <= 0) {
            return;
        }
        inParts(iterations, part);
        JitQuiet.await();
    }

    /**
     * Runs the same parts as {@link #run} without the wait: for a peer whose runs must match the measuring side's
     * one for one (a sink that acknowledges the end of each run), and which must not stall the timed run that
     * follows while its own JIT settles.
     *
     * @param iterations the warm-up's iterations
     * @param part       the loop
     * @param <E>        what the loop throws
     * @throws E if the loop does
     */
    public static <E extends Exception> void inParts(int iterations, Part<E> part) throws E {
        int parts = Math.min(PARTS, iterations);
        for (int k = 0; k < parts; k++) {
            part.run(partSize(iterations, parts, k));
        }
    }

    /** The iterations of part {@code k} of {@code parts}: the first ones take the remainder. */
    static int partSize(int iterations, int parts, int k) {
        return iterations / parts + (k < iterations % parts ? 1 : 0);
    }
}
