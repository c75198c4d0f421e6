package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_context;
import io.jrdma.bindings.ibverbs.ibv_context_ops;
import io.jrdma.bindings.ibverbs.ibv_cq;
import io.jrdma.bindings.ibverbs.ibv_cq_init_attr_ex;
import io.jrdma.bindings.ibverbs.ibv_moderate_cq;
import io.jrdma.bindings.ibverbs.ibv_modify_cq_attr;
import io.jrdma.bindings.ibverbs.verbs_context;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.DataPath;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A completion queue ({@code struct ibv_cq}). Polling goes straight to the provider's {@code poll_cq} and
 * allocates nothing.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.CompletionSnippets region=busy-poll}
 *
 * <p>Several threads may poll one completion queue at once, each with its own {@link WorkCompletions}: every
 * completion goes to exactly one of them. A queue that fills up (more completions than entries) is an overrun: the
 * device reports {@link AsyncEventType#CQ_ERR} to {@link Context#onAsyncEvent} listeners, so size it for every
 * completion that can be outstanding. That is the {@link ThreadConfinement#SHARED} default; a queue created with
 * {@link Builder#confinement confinement(CONFINED)} belongs to the thread that created it, which alone may poll, arm,
 * resize and close it (other threads get {@link WrongThreadException}), and its polls skip the atomics that let
 * another thread's close wait for them.
 */
@SuppressWarnings("restricted")
public final class CompletionQueue implements AutoCloseable {
    private static final MethodHandle CREATE_CQ = Errno.capturing(
            ibverbs_h.ibv_create_cq$address(), ibverbs_h.ibv_create_cq$descriptor());

    final ResourceGuard guard;
    private final Context context;
    private final CompletionChannel channel;
    private final MemorySegment cq;
    /** The kernel's handle, kept for messages: the native struct is freed when the queue closes. */
    private final int handle;
    private final MemorySegment pollCq;
    private final MemorySegment reqNotifyCq;

    private final ExtendedPoll extendedPoll;
    /** Made and freed by someone else (see {@link #adopt}): never destroyed natively. */
    private final boolean adopted;

    /**
     * Creates a completion queue: {@code ctx.completionQueue(256).create()}, with any of the options below.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.CompletionSnippets region=builder}
     */
    public static final class Builder {
        private final Context context;
        private final int entries;
        private CompletionChannel channel;
        private int vector;
        private Set<WcField> fields;
        private ThreadConfinement confinement = ThreadConfinement.SHARED;

        Builder(Context context, int entries) {
            this.context = context;
            this.entries = entries;
        }

        /**
         * The channel its completion events go to (default none: a polled-only queue).
         *
         * @param channel the channel, or {@code null} for none
         * @return this builder
         */
        public Builder channel(CompletionChannel channel) {
            this.channel = channel;
            return this;
        }

        /**
         * The completion vector, 0 to {@code numCompletionVectors() - 1} (default 0).
         *
         * @param vector the completion vector (checked by {@link #create()})
         * @return this builder
         */
        public Builder vector(int vector) {
            this.vector = vector;
            return this;
        }

        /**
         * Makes it an extended queue ({@code ibv_create_cq_ex}) that reports {@code fields} besides id, status,
         * opcode and flags, for {@link CompletionQueue#extendedPoll()}; classic polling keeps working.
         *
         * @param fields the extra fields each completion carries
         * @return this builder
         */
        public Builder extended(WcField... fields) {
            EnumSet<WcField> set = EnumSet.noneOf(WcField.class);
            set.addAll(List.of(fields));
            this.fields = set;
            return this;
        }

        /**
         * Which threads may use the queue, as for {@link QueuePair.Builder#confinement}; null is refused.
         *
         * @param confinement {@link ThreadConfinement#SHARED} (the default) or {@link ThreadConfinement#CONFINED} to
         *     the thread that calls {@link #create()}
         * @return this builder
         * @throws NullPointerException if {@code confinement} is null
         */
        public Builder confinement(ThreadConfinement confinement) {
            this.confinement = Objects.requireNonNull(confinement, "confinement");
            return this;
        }

        /**
         * Creates the queue ({@code ibv_create_cq}, or {@code ibv_create_cq_ex} when {@link #extended}).
         *
         * @return the new completion queue, a child of the context (and of the channel, if any)
         * @throws RdmaException            if the verb fails, e.g. {@code EINVAL} for more entries than the device
         *                                  allows, or {@code EOPNOTSUPP} for an extended queue the device cannot make
         * @throws IllegalArgumentException if the size or vector is out of range (before any native call)
         * @throws IllegalStateException    if the context or channel is closed
         */
        public CompletionQueue create() throws RdmaException {
            return fields == null ? CompletionQueue.create(context, entries, channel, vector, confinement)
                    : createEx(context, entries, channel, vector, fields, confinement);
        }
    }

    private CompletionQueue(Context context, CompletionChannel channel, MemorySegment cq, Set<WcField> fields,
                            boolean adopted, ThreadConfinement confinement) {
        this.guard = new ResourceGuard(this,
                ResourceGuard.Lifecycle.of(this::destroy, this::checkClosable, this::releaseIfLeaked), confinement);
        this.adopted = adopted;
        this.context = context;
        this.channel = channel;
        this.cq = cq;
        this.handle = ibv_cq.handle(cq);
        MemorySegment ops = ibv_context.ops(context.segment());
        this.pollCq = ibv_context_ops.poll_cq(ops);
        this.reqNotifyCq = ibv_context_ops.req_notify_cq(ops);
        this.extendedPoll = fields == null ? null : new ExtendedPoll(this, guard.owner(), cq, fields);
        if (channel != null) {
            channel.attach(this);
        }
        context.asyncEvents.register(cq, this);
    }

    static CompletionQueue create(Context context, int entries, CompletionChannel channel, int vector,
                                  ThreadConfinement confinement) throws RdmaException {
        checkArguments(context, entries, channel, vector);
        return ResourceGuard.create(() -> {
            MemorySegment cq = Verbs.pointer("ibv_create_cq", CREATE_CQ, context.segment(), entries,
                    MemorySegment.NULL, channel == null ? MemorySegment.NULL : channel.segment(), vector);
            return new CompletionQueue(context, channel, cq.reinterpret(ibv_cq.sizeof()), null, false, confinement);
        }, cq -> cq.guard, parents(context, channel));
    }

    /**
     * The completion queue over {@code cq}, which something other than libibverbs created (reporting to
     * {@code channel}'s native channel, or none) and will destroy.
     */
    static CompletionQueue adopt(Context context, CompletionChannel channel, MemorySegment cq,
                                 ThreadConfinement confinement) {
        return ResourceGuard.create(() -> new CompletionQueue(context, channel, cq.reinterpret(ibv_cq.sizeof()), null,
                true, confinement), queue -> queue.guard, parents(context, channel));
    }

    /** {@code ibv_create_cq_ex}, through the provider's {@code create_cq_ex} as verbs.h does. */
    static CompletionQueue createEx(Context context, int entries, CompletionChannel channel, int vector,
                                    Set<WcField> fields, ThreadConfinement confinement) throws RdmaException {
        checkArguments(context, entries, channel, vector);
        MemorySegment op = ExtendedOps.require(context, verbs_context.create_cq_ex$offset(), "ibv_create_cq_ex",
                "extended completion queues");
        long wcFlags = fields.stream().mapToLong(WcField::mask).reduce(0, (a, b) -> a | b);
        return ResourceGuard.create(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment attr = ibv_cq_init_attr_ex.allocate(arena);
                ibv_cq_init_attr_ex.cqe(attr, entries);
                ibv_cq_init_attr_ex.channel(attr, channel == null ? MemorySegment.NULL : channel.segment());
                ibv_cq_init_attr_ex.comp_vector(attr, vector);
                ibv_cq_init_attr_ex.wc_flags(attr, wcFlags);
                MemorySegment cq = Verbs.pointer("ibv_create_cq_ex",
                        Errno.capturing(op, verbs_context.create_cq_ex.descriptor()), context.segment(), attr);
                // An ibv_cq_ex starts with an ibv_cq: ibv_cq_ex_to_cq is a cast.
                return new CompletionQueue(context, channel, cq.reinterpret(ibv_cq.sizeof()), Set.copyOf(fields),
                        false, confinement);
            }
        }, cq -> cq.guard, parents(context, channel));
    }

    private static void checkArguments(Context context, int entries, CompletionChannel channel, int vector) {
        if (entries < 1) {
            throw new IllegalArgumentException("a completion queue needs at least 1 entry, not " + entries);
        }
        if (channel != null && channel.isClosed()) {
            throw new IllegalStateException(channel + " is closed");
        }
        int vectors = context.numCompletionVectors();
        if (vector < 0 || vector >= vectors) {
            throw new IllegalArgumentException("completion vector " + vector + " is not in [0, " + vectors + ")");
        }
    }

    private static ResourceGuard[] parents(Context context, CompletionChannel channel) {
        return channel == null ? new ResourceGuard[] {context.guard}
                : new ResourceGuard[] {context.guard, channel.guard};
    }

    /**
     * Polls up to {@code wcs.capacity()} completions into {@code wcs} ({@code ibv_poll_cq}).
     *
     * @param wcs where to put them; it is overwritten from index 0
     * @return how many were filled, 0 if none is ready
     * @throws IllegalStateException if the queue is closed, or this thread has an extended poll open on it
     * @throws WrongThreadException  if the queue is {@link ThreadConfinement#CONFINED} to another thread
     * @throws NullPointerException  if {@code wcs} is null
     * @throws RdmaException         if the provider fails the poll
     */
    public int poll(WorkCompletions wcs) throws RdmaException {
        Objects.requireNonNull(wcs, "wcs");
        checkNotInOwnBatch();
        int n;
        guard.enter();
        try {
            n = (int) DataPath.POLL_CQ.invokeExact(pollCq, cq.address(), wcs.capacity(), wcs.segment());
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        } finally {
            guard.exit();
        }
        if (n < 0) {
            throw Errno.exception("ibv_poll_cq", -n);
        }
        return n;
    }

    /**
     * Arms the queue: the next completion (or, with {@code solicitedOnly}, the next solicited or error one) sends an
     * event to its channel ({@code ibv_req_notify_cq}). One arming yields at most one event: arm again after each
     * {@link CompletionChannel#await}, then poll, so that no completion slips between the poll and the arming.
     *
     * @param solicitedOnly whether only solicited (and failed) completions raise the event
     * @throws RdmaException         if {@code ibv_req_notify_cq} fails
     * @throws IllegalStateException if the queue is closed or has no channel
     * @throws WrongThreadException  if the queue is {@link ThreadConfinement#CONFINED} to another thread
     */
    public void requestNotification(boolean solicitedOnly) throws RdmaException {
        if (channel == null) {
            throw new IllegalStateException(this + " has no completion channel to notify");
        }
        int rc;
        guard.enter();
        try {
            rc = (int) DataPath.REQ_NOTIFY_CQ.invokeExact(reqNotifyCq, cq.address(), solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        } finally {
            guard.exit();
        }
        Verbs.check("ibv_req_notify_cq", rc);
    }

    /**
     * Resizes the queue to at least {@code entries} entries ({@code ibv_resize_cq}).
     *
     * @param entries the new minimum number of entries; at least the completions it now holds
     * @throws RdmaException            if {@code ibv_resize_cq} fails, e.g. {@code EOPNOTSUPP} on a device that
     *     cannot resize
     * @throws IllegalArgumentException if {@code entries} is less than 1
     * @throws IllegalStateException    if the queue is closed, or this thread has an extended poll open on it
     */
    public void resize(int entries) throws RdmaException {
        if (entries < 1) {
            throw new IllegalArgumentException("a completion queue needs at least 1 entry, not " + entries);
        }
        checkNotInOwnBatch();   // the provider resizes under the lock this thread's batch holds
        guard.enter();
        try {
            Verbs.check("ibv_resize_cq", ibverbs_h.ibv_resize_cq(cq, entries));
        } finally {
            guard.exit();
        }
    }

    /**
     * Moderates completion events ({@code ibv_modify_cq} with {@code IBV_CQ_ATTR_MODERATE}): the channel hears of
     * completions once {@code count} have gathered or {@code periodMicros} have passed since the first.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.CompletionSnippets region=moderate}
     *
     * @param count        completions per event, 0..65535
     * @param periodMicros the longest wait for an event, in microseconds, 0..65535
     * @throws RdmaException            {@code EOPNOTSUPP} if the device cannot moderate (its provider has no
     *     {@code modify_cq}, or refuses it, as Soft-RoCE does), or what else {@code ibv_modify_cq} fails with
     * @throws IllegalArgumentException if a value is out of range
     * @throws IllegalStateException    if the queue is closed
     */
    public void moderate(int count, int periodMicros) throws RdmaException {
        ConnectOptions.range("count", count, 0, 0xffff);
        ConnectOptions.range("periodMicros", periodMicros, 0, 0xffff);
        guard.enter();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment op = ExtendedOps.require(context, verbs_context.modify_cq$offset(), "ibv_modify_cq",
                    "completion queue moderation");
            MemorySegment attr = ibv_modify_cq_attr.allocate(arena);
            ibv_modify_cq_attr.attr_mask(attr, ibverbs_h.IBV_CQ_ATTR_MODERATE());
            MemorySegment moderation = ibv_modify_cq_attr.moderate(attr);
            ibv_moderate_cq.cq_count(moderation, (short) count);
            ibv_moderate_cq.cq_period(moderation, (short) periodMicros);
            int rc = verbs_context.modify_cq.invoke(op, cq, attr);
            if (Math.abs(rc) == Errno.EOPNOTSUPP) {
                throw Errno.exception("ibv_modify_cq", Errno.EOPNOTSUPP,
                        context.device().name() + " does not moderate completion queues");
            }
            Verbs.check("ibv_modify_cq", rc);
        } finally {
            guard.exit();
        }
    }

    /**
     * The number of entries the queue really has (at least what was asked).
     *
     * @return the device's {@code cqe}
     * @throws IllegalStateException if the queue is closed
     */
    public int capacity() {
        guard.enter();
        try {
            return ibv_cq.cqe(cq);
        } finally {
            guard.exit();
        }
    }

    /**
     * The extended polling cursor ({@code ibv_start_poll} and friends).
     *
     * @return the queue's one cursor
     * @throws IllegalStateException if this queue was not created {@link Builder#extended extended}
     */
    public ExtendedPoll extendedPoll() {
        guard.checkOpen();
        if (extendedPoll == null) {
            throw new IllegalStateException(this + " is not extended: create it with completionQueue(n).extended(fields)");
        }
        return extendedPoll;
    }


    /**
     * Which threads may use this queue, as it was created.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.CompletionSnippets region=confinement}
     *
     * @return the confinement chosen at creation
     */
    public ThreadConfinement confinement() {
        return guard.owner() == null ? ThreadConfinement.SHARED : ThreadConfinement.CONFINED;
    }

    /**
     * The channel it reports to, or {@code null}.
     *
     * @return the channel given at creation, or {@code null}
     */
    public CompletionChannel channel() {
        return channel;
    }

    /**
     * The context it was created on.
     *
     * @return the context
     */
    public Context context() {
        return context;
    }

    MemorySegment segment() {
        return cq;
    }

    private void checkClosable() {
        if (extendedPoll != null) {
            extendedPoll.checkClosable();
        }
    }

    /** Frees a leaked queue; it must not refer to this object. */
    private Runnable releaseIfLeaked() {
        MemorySegment leaked = cq;
        Context from = context;
        return adopted ? null : () -> {
            ibverbs_h.ibv_destroy_cq(leaked);
            from.asyncEvents.unregister(leaked, null);
        };
    }

    private void destroy() throws RdmaException {
        if (!adopted) {
            Verbs.check("ibv_destroy_cq", ibverbs_h.ibv_destroy_cq(cq));
        }
        context.asyncEvents.unregister(cq, this);
        if (channel != null) {
            channel.detach(this);
        }
    }

    /** {@return whether {@link #close()} has completed} */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /**
     * Releases the native object. A second call does nothing.
     *
     * @throws IllegalStateException if objects created from this one are still open (nothing is closed then)
     * @throws RdmaException         if the native destroy verb fails (it stays open)
     * @throws WrongThreadException  if it is confined to another thread (it stays open)
     */
    @Override
    public void close() throws RdmaException {
        guard.close();
    }

    @Override
    public String toString() {
        return "CompletionQueue[" + context.device().name() + ", handle " + handle + "]";
    }

    /**
     * Refuses a poll (or resize) from the thread that holds this queue's extended poll: the provider holds the queue's
     * lock from {@code ibv_start_poll} to {@code ibv_end_poll}, so the call would spin on it forever, inside a
     * critical downcall that no safepoint can interrupt (the whole JVM would stop).
     */
    private void checkNotInOwnBatch() {
        ExtendedPoll x = extendedPoll;
        if (x != null && x.isOpenOnThisThread()) {
            throw new IllegalStateException("this thread has an extended poll open on " + this
                    + ": read through it, or end() it first");
        }
    }
}
