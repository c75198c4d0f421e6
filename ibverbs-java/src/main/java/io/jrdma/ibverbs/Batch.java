package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeResource;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One thread's hold on a queue from the start to the end of a batch ({@code ibv_start_poll} to {@code ibv_end_poll},
 * {@code ibv_wr_start} to {@code ibv_wr_complete}): the provider locks the queue for that thread meanwhile, so no
 * other batch may start (its thread would spin in the provider's lock) and the queue must not be destroyed under it
 * (a close from another thread waits for the end). Allocation-free.
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

    private final NativeResource queue;
    private final String ending;
    @SuppressWarnings("unused")
    private volatile Thread holder;

    /** {@code ending}: how a batch ends, for messages (e.g. "end()"). */
    Batch(NativeResource queue, String ending) {
        this.queue = queue;
        this.ending = ending;
    }

    /**
     * Makes the calling thread the holder and keeps the queue open until {@link #finish()}.
     *
     * @throws IllegalStateException if a batch is already open on the queue, or the queue is closed
     */
    void begin() {
        Thread me = Thread.currentThread();
        if (!HOLDER.compareAndSet(this, null, me)) {
            throw new IllegalStateException("a batch is already open on " + queue + " ("
                    + (holder == me ? "this thread's" : "another thread's") + "): " + ending + " it first");
        }
        try {
            queue.enter();
        } catch (IllegalStateException closed) {
            holder = null;
            throw closed;
        }
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
