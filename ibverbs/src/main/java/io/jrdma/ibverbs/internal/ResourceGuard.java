package io.jrdma.ibverbs.internal;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ThreadConfinement;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The lifecycle every verbs object shares, held by each as a final field {@code guard} (composition, so that none of
 * this is reachable through the public types): idempotent close, use after close refused, and parents that know their
 * children. The rule: a resource with live children cannot be closed; close fails naming them, and nothing is
 * closed. Children are created under the parents' locks, so a parent cannot close while a child is being born.
 *
 * <p>A {@link ThreadConfinement#CONFINED} resource belongs to the thread that created it: any other thread's use or
 * close is a {@link WrongThreadException}, so no call can be in flight when its owner closes it, and its data-path
 * calls skip the in-flight counter's atomics.
 */
public final class ResourceGuard {
    private final Object resource;
    private final Lifecycle lifecycle;
    /** The objects created from this one, and what becomes of this one if it is never closed. */
    private final LeakTracker tracker;
    /** The only thread that may use or close a confined resource; null for a shared one. */
    private final Thread owner;
    private volatile boolean closed;
    /** Set while {@link #close()} waits for the calls in flight: waiters on the object's descriptors give up. */
    private volatile boolean closing;
    /** Data-path calls in flight on the native object; {@link #CLAIMED} once close has taken it. */
    @SuppressWarnings("unused")
    private volatile int users;
    private static final int CLAIMED = Integer.MIN_VALUE;
    private static final VarHandle USERS;

    static {
        try {
            USERS = MethodHandles.lookup().findVarHandle(ResourceGuard.class, "users", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * What the guarded object does at the ends of its life. Implemented privately by each object (a method reference
     * to its destroy method when that is all it needs), so that none of it is public API.
     */
    @FunctionalInterface
    public interface Lifecycle {
        /**
         * What {@link ResourceGuard#close()} releases natively. Runs at most once, only when there are no live
         * children.
         */
        void destroy() throws RdmaException;

        /**
         * Refuses a close that could never finish: e.g. one from the thread that holds the object in a batch that
         * only it can end. Runs under the guard's lock, before close waits for the calls in flight.
         *
         * @throws IllegalStateException if the object cannot be closed now
         */
        default void checkClosable() {
        }

        /**
         * What frees the object natively if it becomes unreachable without {@link ResourceGuard#close()}: run once,
         * on a cleaner thread, after everything created from it was freed; null when there is nothing to free (an
         * adopted object). It must not refer to the object, or the object would never become unreachable.
         */
        default Runnable releaseIfLeaked() {
            return null;
        }

        /** The lifecycle of a destroy and a release if leaked (see {@link #releaseIfLeaked()}). */
        static Lifecycle of(Lifecycle destroy, Supplier<Runnable> releaseIfLeaked) {
            return of(destroy, () -> { }, releaseIfLeaked);
        }

        /** The lifecycle of these three parts, for objects that need more than {@link #destroy()}. */
        static Lifecycle of(Lifecycle destroy, Runnable checkClosable, Supplier<Runnable> releaseIfLeaked) {
            return new Lifecycle() {
                @Override
                public void destroy() throws RdmaException {
                    destroy.destroy();
                }

                @Override
                public void checkClosable() {
                    checkClosable.run();
                }

                @Override
                public Runnable releaseIfLeaked() {
                    return releaseIfLeaked.get();
                }
            };
        }
    }

    /** A {@link ThreadConfinement#SHARED} guard of {@code resource}. */
    public ResourceGuard(Object resource, Lifecycle lifecycle) {
        this(resource, lifecycle, ThreadConfinement.SHARED);
    }

    /**
     * The guard of {@code resource}, which names it in messages, of the given confinement (a confined one belongs to
     * the calling, creating thread). An object made from others is created through {@link #create}, which makes it
     * their child; a root (made from nothing) calls {@link #watchForLeaks()} once it exists natively.
     */
    public ResourceGuard(Object resource, Lifecycle lifecycle, ThreadConfinement confinement) {
        this.resource = resource;
        this.lifecycle = lifecycle;
        this.owner = confinement == ThreadConfinement.CONFINED ? Thread.currentThread() : null;
        this.tracker = new LeakTracker(resource);
    }

    /**
     * A guard for native memory of {@code arena} that calls hand to C by address (a work request a chain links to):
     * {@link #enter()} it for the call, and the arena's close waits for the call before it frees the memory, then
     * refuses later calls ({@code name} is closed).
     */
    @SuppressWarnings("restricted")
    public static ResourceGuard ofArena(Arena arena, String name) {
        ResourceGuard g = new ResourceGuard(name, () -> { });
        // Cleanups run before the arena frees its memory, the latest added first.
        MemorySegment.NULL.reinterpret(arena, ignored -> g.closeArenaUse());
        return g;
    }

    private void closeArenaUse() {
        try {
            close();
        } catch (RdmaException impossible) {   // its destroy does nothing
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * Reports and frees the root object (one without parents) if it becomes unreachable unclosed (see
     * {@link Lifecycle#releaseIfLeaked()}). Objects made through {@link #create} are watched from their creation.
     */
    public void watchForLeaks() {
        tracker.watch(resource, lifecycle.releaseIfLeaked());
    }

    /**
     * Runs {@code creator} while holding the locks of the child's {@code parents} (their guards), after checking they
     * are open, and makes the child's {@code guard} known to them once it exists: a concurrent close can neither
     * orphan it nor miss it.
     */
    public static <T, E extends Exception> T create(Creator<T, E> creator, Function<? super T, ResourceGuard> guard,
                                                    ResourceGuard... parents) throws E {
        return createLocked(creator, guard, parents, 0);
    }

    private static <T, E extends Exception> T createLocked(Creator<T, E> creator,
                                                           Function<? super T, ResourceGuard> guard,
                                                           ResourceGuard[] parents, int i) throws E {
        if (i == parents.length) {
            T child = creator.create();
            ResourceGuard g = guard.apply(child);
            for (ResourceGuard p : parents) {
                p.tracker.add(g.tracker);
            }
            g.tracker.watch(child, g.lifecycle.releaseIfLeaked());
            return child;
        }
        synchronized (parents[i]) {
            parents[i].checkOpen();
            return createLocked(creator, guard, parents, i + 1);
        }
    }

    /** Makes a child; see {@link #create}. */
    @FunctionalInterface
    public interface Creator<T, E extends Exception> {
        T create() throws E;
    }

    /** The thread a confined resource belongs to, or null when it is shared. */
    public Thread owner() {
        return owner;
    }

    /**
     * @throws WrongThreadException  if this resource is confined to another thread
     * @throws IllegalStateException if this resource is closed
     */
    public void checkOpen() {
        if (owner != null && owner != Thread.currentThread()) {
            throw wrongThread(this, owner);
        }
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /** The refusal of a call on {@code resource}, confined to {@code owner}, from the current thread. */
    private static WrongThreadException wrongThread(Object resource, Thread owner) {
        Thread me = Thread.currentThread();
        return new WrongThreadException(resource + " is confined to thread \"" + owner.getName() + "\" (#"
                + owner.threadId() + "), which created it; thread \"" + me.getName() + "\" (#" + me.threadId()
                + ") cannot use or close it");
    }

    /**
     * Makes {@code to} this resource's parent in place of {@code from} (e.g. a connection-manager id moved to another
     * event channel), so that {@code to} cannot close while this lives and {@code from} now can.
     */
    public void replaceParent(ResourceGuard from, ResourceGuard to) {
        synchronized (to) {
            to.checkOpen();
            to.tracker.add(tracker);
        }
        synchronized (from) {
            from.tracker.remove(tracker);
        }
    }

    /**
     * Starts a data-path call (post, poll) on the native object: close waits until it {@link #exit()}s, so that
     * another thread's close can never free the object under it. Allocation-free.
     *
     * @throws IllegalStateException if the resource is closed (or being closed)
     * @throws WrongThreadException  if the resource is confined to another thread
     */
    public void enter() {
        Thread o = owner;
        if (o != null) {
            // Confined: only the owner gets here, and it cannot be closing the resource now, so nothing to count.
            if (o != Thread.currentThread() || closed) {
                throw refused();
            }
            return;
        }
        // Once a close waits, new calls are refused: a thread calling in a loop would otherwise keep the count above
        // zero and the close waiting for ever. One atomic add, no retry loop: after the claim, a refused call's +1
        // and -1 leave the count negative.
        if (closing) {
            throw closing();
        }
        if ((int) USERS.getAndAdd(this, 1) < 0) {
            USERS.getAndAdd(this, -1);
            throw new IllegalStateException(this + " is closed");
        }
    }

    private IllegalStateException closing() {
        return new IllegalStateException(this + (closed ? " is closed" : " is being closed"));
    }

    // Out of line, so that enter() stays small enough to inline into every data-path call.
    private RuntimeException refused() {
        return owner != Thread.currentThread() ? wrongThread(this, owner)
                : new IllegalStateException(this + " is closed");
    }

    /**
     * {@link #enter()}s the first {@code n} of {@code resources}, all or none: a call that uses several objects
     * (a request's regions, its address handle) holds them all open while it runs. Allocation-free.
     *
     * @throws IllegalStateException if one of them is closed (then none is held)
     */
    public static void enterAll(ResourceGuard[] resources, int n) {
        for (int i = 0; i < n; i++) {
            try {
                resources[i].enter();
            } catch (RuntimeException refused) {   // closed, or confined to another thread
                exitAll(resources, i);
                throw refused;
            }
        }
    }

    /** Ends the holds of {@link #enterAll} on the first {@code n} of {@code resources}. */
    public static void exitAll(ResourceGuard[] resources, int n) {
        for (int i = 0; i < n; i++) {
            resources[i].exit();
        }
    }

    /**
     * Waits for an event on {@code fd}, which belongs to this object, and reads it (see {@link Fd#awaitEvent}),
     * counted in like a data-path call: a close from another thread makes the wait end with an
     * {@link IllegalStateException} within one poll slice, and only then frees the native object.
     *
     * @return whether an event was read ({@code false}: the timeout passed)
     * @throws IllegalStateException if this object is closed, or is closed while waiting
     */
    public boolean awaitEvent(int fd, Duration timeout, String verb, MemorySegment state, Fd.EventRead read)
            throws RdmaException, InterruptedException {
        if (closing) {
            throw new IllegalStateException(this + " is being closed");
        }
        enter();
        try {
            return Fd.awaitEvent(fd, timeout, verb, state, read, () -> {
                if (closing) {
                    throw new IllegalStateException(this + " was closed while a thread waited on it");
                }
            });
        } finally {
            exit();
        }
    }

    /** Ends a call started by {@link #enter()}. */
    public void exit() {
        if (owner == null) {
            USERS.getAndAdd(this, -1);
        }
    }

    /**
     * Whether objects created from this one are open, or leaked and not yet released: a leaked child is detached
     * once its native release has returned, on the cleaner's thread.
     */
    boolean hasOpenChildren() {
        return tracker.hasChildren();
    }

    /** {@return whether {@link #close()} has completed} */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Releases the native object. A second call does nothing.
     *
     * @throws IllegalStateException if resources created from this one are still open (nothing is closed then)
     * @throws RdmaException         if the native destroy verb fails (the resource stays open)
     * @throws WrongThreadException  if the resource is confined to another thread (it stays open)
     */
    public void close() throws RdmaException {
        if (owner != null && owner != Thread.currentThread()) {
            throw wrongThread(this, owner);
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            if (hasOpenChildren()) {
                throw new IllegalStateException("cannot close " + this + ": still used by "
                        + tracker.openChildren() + "; close those first");
            }
            lifecycle.checkClosable();
            if (owner == null) {
                closeShared();
            } else {
                // The owner is here, so none of its calls is in flight (a batch of its own was refused above), and
                // other threads are refused whether or not the resource is closed.
                lifecycle.destroy();
            }
            closed = true;
        }
        tracker.closed();
    }

    private void closeShared() throws RdmaException {
        closing = true;
        // Calls already in flight finish first; later ones see the claim and refuse. Posts and polls are short,
        // but a batch (ibv_wr_start to complete, ibv_start_poll to end) lasts as long as its thread wants.
        for (int spins = 0; !USERS.compareAndSet(this, 0, CLAIMED); spins++) {
            if (spins < 10_000) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
        try {
            lifecycle.destroy();
        } catch (RdmaException | RuntimeException e) {
            // Undo the claim only: refused calls may be between their +1 and -1 (CLAIMED is its own negation).
            USERS.getAndAdd(this, CLAIMED);
            closing = false;
            throw e;
        }
    }

    /** The guarded object's name, for the messages that refuse a call on it. */
    @Override
    public String toString() {
        return resource.toString();
    }
}
