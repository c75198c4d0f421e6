package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.ResourceGuard;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One thread's hold on a queue from the start to the end of a batch ({@code ibv_start_poll} to {@code ibv_end_poll},
 * {@code ibv_wr_start} to {@code ibv_wr_complete}): the provider locks the queue for that thread meanwhile, so no
 * other batch may start (its thread would spin in the provider's lock) and the queue must not be destroyed under it
 * (a close from another thread waits for the end). Allocation-free. On a confined queue only its owner can hold a
 * batch, so the hold is plain writes, no atomics.
 */
final class Batch {
    private static final VarHandle HOLDER;

    static {
        try {
            HOLDER = MethodHandles.lookup().findVarHandle(Batch.class, "holder", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ResourceGuard queue;
    /** The thread a confined queue belongs to; null for a shared queue. */
    private final Thread owner;
    private final String ending;
    @SuppressWarnings("unused")
    private volatile Thread holder;

    /** {@code owner}: the queue's thread if it is confined, else null; {@code ending}: how a batch ends, e.g. "end()". */
    Batch(ResourceGuard queue, Thread owner, String ending) {
        this.queue = queue;
        this.owner = owner;
        this.ending = ending;
    }

    /**
     * Makes the calling thread the holder and keeps the queue open until {@link #finish()}.
     *
     * @throws IllegalStateException if a batch is already open on the queue, or the queue is closed
     * @throws WrongThreadException  if the queue is confined to another thread
     */
    void begin() {
        Thread me = Thread.currentThread();
        if (owner != null) {
            queue.enter();   // refuses other threads and a closed queue; counts nothing, so nothing to undo
            if (HOLDER.get(this) != null) {
                throw alreadyOpen(me);
            }
            HOLDER.set(this, me);
            return;
        }
        if (!HOLDER.compareAndSet(this, null, me)) {
            throw alreadyOpen(me);
        }
        try {
            queue.enter();
        } catch (IllegalStateException closed) {
            holder = null;
            throw closed;
        }
    }

    private IllegalStateException alreadyOpen(Thread me) {
        return new IllegalStateException("a batch is already open on " + queue + " ("
                + (holder == me ? "this thread's" : "another thread's") + "): " + ending + " it first");
    }

    boolean heldByCurrentThread() {
        return holder == Thread.currentThread();
    }

    /** @throws IllegalStateException if the calling thread has no batch open */
    void checkHeld() {
        if (holder != Thread.currentThread()) {
            throw new IllegalStateException("no batch open on " + queue + " for this thread: call start() first");
        }
    }

    /** Ends the hold: another thread may start a batch, and the queue may close. */
    void finish() {
        holder = null;
        queue.exit();
    }

    /** Refuses a close from inside the batch, which would wait for itself forever. */
    void checkClosable() {
        if (heldByCurrentThread()) {
            throw new IllegalStateException("cannot close " + queue + " inside this thread's batch: " + ending
                    + " it first");
        }
    }
}
