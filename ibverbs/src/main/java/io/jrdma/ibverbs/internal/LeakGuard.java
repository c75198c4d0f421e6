package io.jrdma.ibverbs.internal;

import java.lang.ref.Cleaner;

/**
 * Watches a root object (a device context, a connection-manager event channel): if it becomes unreachable without
 * {@code close()}, logs a warning naming it and every object still open under it, each with where it was created,
 * then runs its release, which frees them natively. It holds descriptions and native handles, never the objects.
 *
 * {@snippet class=io.jrdma.ibverbs.internal.LeakGuardSnippets region=watch}
 */
public final class LeakGuard implements Runnable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final System.Logger log;
    private final String name;
    private final Ledger ledger;
    private final Throwable site;
    private final Runnable release;
    private volatile boolean disarmed;
    private Cleaner.Cleanable cleanable;

    private LeakGuard(System.Logger log, String name, Ledger ledger, Throwable site, Runnable release) {
        this.log = log;
        this.name = name;
        this.ledger = ledger;
        this.site = site;
        this.release = release;
    }

    /** Starts watching {@code owner}; {@code release} must not refer to it, or it would never become unreachable. */
    public static LeakGuard watch(Object owner, System.Logger log, String name, Ledger ledger, Throwable site,
                                  Runnable release) {
        LeakGuard guard = new LeakGuard(log, name, ledger, site, release);
        guard.cleanable = CLEANER.register(owner, guard);
        return guard;
    }

    /** The owner was closed (or is not ours to release): nothing to report or release, now or later. */
    public void disarm() {
        disarmed = true;
        cleanable.clean();
    }

    @Override
    public void run() {
        if (disarmed) {
            return;
        }
        String open = ledger.report();
        log.log(System.Logger.Level.WARNING, name + " was never closed; releasing it"
                + (open.isEmpty() ? "" : " and what it still had open:\n" + open), site);
        release.run();
    }
}
