package io.jrdma.ibverbs.internal;

import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a guarded object leaves for the garbage collector: its name, where it was created, the trackers of the objects
 * created from it, and how to free it natively. It never refers to the object (only weakly, for a current name), so a
 * parent that holds its children's trackers does not keep leaked children alive: a queue pair dropped without
 * {@code close()} is found while its context lives on.
 *
 * <p>When the object becomes unreachable unclosed, a cleaner reports it (with its creation site) and frees it
 * natively once every object created from it is freed: children first, because a parent's destroy verb fails under
 * them, and because objects leaked together become unreachable together and are cleaned in any order.
 *
 * <p>The system property {@code jrdma.leakDetection} sets what is reported: {@code all} (the default: every leak,
 * each with where the object was created; creating a verbs object is a system call, so the stack trace costs little
 * beside it), {@code sampled} (every leak, with the creation site of one object in {@value #SAMPLING}) or {@code off}
 * (nothing; leaked objects are still freed).
 */
final class LeakTracker implements Runnable {
    /** One object in this many records its creation site at {@code sampled}. */
    static final int SAMPLING = 128;
    private static final Cleaner CLEANER = Cleaner.create();
    private static final String LEVEL = System.getProperty("jrdma.leakDetection", "all").toLowerCase(Locale.ROOT);
    private static final AtomicLong CREATED = new AtomicLong();

    static {
        if (!List.of("all", "sampled", "off").contains(LEVEL)) {
            throw new ExceptionInInitializerError("jrdma.leakDetection is all, sampled or off, not " + LEVEL);
        }
    }

    private final WeakReference<Object> resource;
    private final String kind;
    /** Where the object was created, taken when it is watched: guards that are never watched take no stack trace. */
    private Throwable site;
    /** Trackers of the open objects created from this one; guarded by this. */
    private final Set<LeakTracker> children = new LinkedHashSet<>();
    /** Trackers of the objects this one was created from; guarded by this. */
    private final List<LeakTracker> parents = new ArrayList<>();
    private String name;
    private Runnable release;
    private Cleaner.Cleanable cleanable;
    /** Closed, or released after a leak: nothing more to do. Guarded by this. */
    private boolean ended;
    /** Found unreachable: released as soon as it has no children. Guarded by this. */
    private boolean leaked;

    LeakTracker(Object resource) {
        this.resource = new WeakReference<>(resource);
        this.kind = resource.getClass().getName();
        this.name = kind;
    }

    /**
     * Starts watching {@code resource}, now that it exists natively: {@code release} frees it if it is never closed,
     * and must not refer to it (null: nothing to free, e.g. an adopted object).
     */
    void watch(Object resource, Runnable release) {
        Throwable created = switch (LEVEL) {
            case "all" -> new Throwable("created here");
            case "sampled" -> CREATED.getAndIncrement() % SAMPLING == 0 ? new Throwable("created here") : null;
            default -> null;
        };
        synchronized (this) {
            this.name = resource.toString();
            this.release = release;
            this.site = created;
        }
        cleanable = CLEANER.register(resource, this);
    }

    /** Makes {@code child} one of the objects created from this one. */
    synchronized void add(LeakTracker child) {
        children.add(child);
        synchronized (child) {
            child.parents.add(this);
        }
    }

    /** Ends {@code child}'s dependence on this one; a leaked parent whose last child goes is released then. */
    void remove(LeakTracker child) {
        boolean releaseNow;
        synchronized (this) {
            children.remove(child);
            releaseNow = leaked && !ended && children.isEmpty();
            ended |= releaseNow;
        }
        synchronized (child) {
            child.parents.remove(this);
        }
        if (releaseNow) {
            releaseNatively();
        }
    }

    /** The children still open, named as they are now. */
    synchronized List<String> openChildren() {
        return children.stream().map(LeakTracker::toString).toList();
    }

    synchronized boolean hasChildren() {
        return !children.isEmpty();
    }

    /** The object was closed: nothing to report or free, now or later. */
    void closed() {
        synchronized (this) {
            ended = true;
        }
        if (cleanable != null) {
            cleanable.clean();
        }
        detachFromParents();
    }

    /** Run by the cleaner once the object is unreachable, or by {@link #closed()} (then it does nothing). */
    @Override
    public void run() {
        List<String> open;
        boolean releaseNow;
        synchronized (this) {
            if (ended) {
                return;
            }
            leaked = true;
            open = openChildren();
            releaseNow = children.isEmpty();
            ended = releaseNow;
        }
        if (!LEVEL.equals("off")) {
            System.getLogger(kind).log(System.Logger.Level.WARNING, name + " was never closed; releasing it"
                    + (open.isEmpty() ? "" : " once the objects created from it are: " + open)
                    + (site != null ? "" : " (-Djrdma.leakDetection=all records where each object is created)"), site);
        }
        if (releaseNow) {
            releaseNatively();
        }
    }

    private void releaseNatively() {
        try {
            if (release != null) {
                release.run();
            }
        } catch (RuntimeException e) {
            System.getLogger(kind).log(System.Logger.Level.ERROR, "could not release leaked " + name, e);
        } finally {
            detachFromParents();
        }
    }

    private void detachFromParents() {
        List<LeakTracker> from;
        synchronized (this) {
            from = List.copyOf(parents);
        }
        for (LeakTracker p : from) {
            p.remove(this);
        }
    }

    /** The object's name: as it is now while it lives, else as it was when it was created. */
    @Override
    public String toString() {
        Object r = resource.get();
        return r != null ? r.toString() : name;
    }
}
