package io.jrdma.nativetest.interop;

import java.time.Duration;

/** When a peer's exchange must be over: every wait of it gets what is left, so the whole exchange has one bound. */
record Deadline(long nanoTime) {
    static Deadline in(Duration timeout) {
        return new Deadline(System.nanoTime() + timeout.toNanos());
    }

    /** The time left, at least 1 ms: a wait past the deadline still asks once, then times out. */
    Duration left() {
        return Duration.ofNanos(Math.max(1_000_000, nanoTime - System.nanoTime()));
    }

    boolean passed() {
        return System.nanoTime() - nanoTime >= 0;
    }
}
