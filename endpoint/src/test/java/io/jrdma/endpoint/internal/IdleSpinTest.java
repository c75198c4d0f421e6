package io.jrdma.endpoint.internal;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdleSpinTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final AtomicLong reads = new AtomicLong();
    private final IdleSpin spin = new IdleSpin(Duration.ofNanos(500), () -> {
        reads.incrementAndGet();
        return now.get();
    });

    /** Runs {@code runs} idle runs, each looking whether the spin is over; whether the last look said so. */
    private boolean idle(int runs) {
        boolean spun = false;
        for (int i = 0; i < runs; i++) {
            spin.ran(false);
            spun = spin.spun();
        }
        return spun;
    }

    @Test
    void readsTheClockOnceEveryEightIdleRuns() {
        assertFalse(idle(IdleSpin.CLOCK_EVERY * 4));
        assertEquals(4, reads.get());
    }

    @Test
    void spinsFromTheFirstClockReadOfAnIdleStretch() {
        assertFalse(idle(IdleSpin.CLOCK_EVERY));
        now.addAndGet(499);
        assertFalse(idle(IdleSpin.CLOCK_EVERY));
        now.addAndGet(1);
        assertFalse(idle(IdleSpin.CLOCK_EVERY - 1), "the clock is looked at only on the eighth run");
        assertTrue(idle(1));
    }

    @Test
    void workStartsTheSpinAgain() {
        idle(IdleSpin.CLOCK_EVERY);
        now.addAndGet(10_000);
        assertTrue(idle(IdleSpin.CLOCK_EVERY));
        spin.ran(true);
        assertFalse(spin.spun());
        assertFalse(idle(IdleSpin.CLOCK_EVERY), "the stretch's first clock read only marks its start");
        now.addAndGet(500);
        assertTrue(idle(IdleSpin.CLOCK_EVERY));
    }

    @Test
    void noSpinMayBlockInEveryRunWithoutTheClock() {
        IdleSpin none = new IdleSpin(Duration.ZERO, () -> {
            throw new AssertionError("no spin reads no clock");
        });
        assertTrue(none.spun());
        none.ran(true);
        assertTrue(none.spun());
    }
}
