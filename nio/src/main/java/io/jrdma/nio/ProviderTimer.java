package io.jrdma.nio;

import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The provider's one timer thread, made when first used: it ends the selects whose time is over (by a wakeup) and
 * checks on the rsocket shutdowns that wait for their peer ({@link ShutdownWatchdog}). Its tasks are short, and
 * nearly all are cancelled before their time (a select ends early, a close returns), so cancelled tasks leave the
 * queue at once rather than keep their selectors and sockets reachable until they would have run.
 */
final class ProviderTimer {
    static final ScheduledThreadPoolExecutor TIMER = timer();

    private ProviderTimer() {
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("jrdma-nio-timer").factory());
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
