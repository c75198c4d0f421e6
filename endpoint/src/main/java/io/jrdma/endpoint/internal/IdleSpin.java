package io.jrdma.endpoint.internal;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How long a thread that drives a worker busy-polls before it may block: a started worker's own thread and
 * jrdma-netty's event loop. It counts the loop's runs that found no work in a row and reads the clock only every
 * {@link #CLOCK_EVERY}th of them: a busy-polling loop spends most of its runs finding nothing, and a clock read in
 * each was a tenth of such a run's time on Soft-RoCE's emulated CPU. Confined to the loop's thread.
 */
public final class IdleSpin {
    /** Idle runs per look at the clock. */
    static final int CLOCK_EVERY = 8;

    private final long spinNanos;
    private final LongSupplier clock;
    /** Runs in a row that found no work. */
    private int idleRuns;
    /**
     * When the clock was first read in the current idle stretch ({@link #CLOCK_EVERY} runs into it): the loop
     * busy-polls until {@link #spinNanos} later before it may block.
     */
    private long idleSince;

    /**
     * A spin of {@code spin}; with zero the loop may block in every run (a wait looks for work before it sleeps).
     *
     * @param spin how long the loop busy-polls after its last work
     */
    public IdleSpin(Duration spin) {
        this(spin, System::nanoTime);
    }

    IdleSpin(Duration spin, LongSupplier clock) {
        this.spinNanos = spin.toNanos();
        this.clock = clock;
    }

    /**
     * Counts a run of the loop.
     *
     * @param work whether the run found work: the spin starts again from it
     */
    public void ran(boolean work) {
        idleRuns = work ? 0 : idleRuns + 1;
    }

    /** {@return whether the loop has found no work for its spin time, and may block} */
    public boolean spun() {
        if (spinNanos == 0) {
            return true;
        }
        if (idleRuns == 0 || idleRuns % CLOCK_EVERY != 0) {
            return false;
        }
        long now = clock.getAsLong();
        if (idleRuns == CLOCK_EVERY) {
            idleSince = now;
            return false;
        }
        return now - idleSince >= spinNanos;
    }
}
