package io.jrdma.ibverbs;

/**
 * Which threads may use a queue pair or completion queue, chosen when it is created, as with FFM's
 * {@link java.lang.foreign.Arena#ofShared()} and {@link java.lang.foreign.Arena#ofConfined()}. Both modes are equally
 * safe: misuse is a Java exception, never a use of freed native memory. They differ in what the safety costs.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=confined}
 *
 * <p>{@link #SHARED} is the default: objects created on one thread and used on others (a setup thread and workers,
 * {@code rdmacm}'s connections, an async-event listener that moves a queue pair to ERR) keep working as before, and
 * a program has to opt in to a rule that turns such use into exceptions.
 */
public enum ThreadConfinement {
    /**
     * Any thread may use the object, and close it while other threads post or poll on it: each data-path call
     * counts itself in and out of the object with two atomic operations (about 5 ns), so that a close waits for the
     * calls in flight and the calls after it throw {@link IllegalStateException}.
     */
    SHARED,
    /**
     * Only the thread that created the object may use or close it; from any other thread, every call that reaches
     * the native object (posts, polls, arming, state changes, queries, batches, {@code close()}) throws
     * {@link WrongThreadException} and changes nothing. A close can then never race a call, so the data path needs
     * no atomics: it checks the thread and that the object is open. Use after close is still an
     * {@link IllegalStateException}. Plain accessors of fixed values ({@code qpNumber()}, {@code type()},
     * {@code isClosed()}, ...) work from any thread. Close it on its owner (try-with-resources): once the owner has
     * ended, nothing can close it, nor its parents, until its context is released as a leak.
     */
    CONFINED
}
