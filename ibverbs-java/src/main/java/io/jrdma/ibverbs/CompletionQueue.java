package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_context;
import io.jrdma.bindings.ibverbs.ibv_context_ops;
import io.jrdma.bindings.ibverbs.ibv_cq;
import io.jrdma.bindings.ibverbs.ibv_cq_init_attr_ex;
import io.jrdma.bindings.ibverbs.verbs_context;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.DataPath;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.NativeResource;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;
import java.util.Set;

/**
 * A completion queue ({@code struct ibv_cq}). Polling goes straight to the provider's {@code poll_cq} and
 * allocates nothing.
 *
 * <pre>{@code
 * try (CompletionQueue cq = ctx.createCompletionQueue(256)) {
 *     WorkCompletions wcs = new WorkCompletions(16);
 *     int n;
 *     while ((n = cq.poll(wcs)) == 0) Thread.onSpinWait();
 * }
 * }</pre>
 *
 * <p>Several threads may poll one completion queue at once, each with its own {@link WorkCompletions}: every
 * completion goes to exactly one of them. A queue that fills up (more completions than entries) is an overrun: the
 * device reports {@link AsyncEventType#CQ_ERR} to {@link Context#onAsyncEvent} listeners, so size it for every
 * completion that can be outstanding.
 */
public final class CompletionQueue extends NativeResource {
    private static final MethodHandle CREATE_CQ = Errno.capturing(
            ibverbs_h.ibv_create_cq$address(), ibverbs_h.ibv_create_cq$descriptor());

    private final Context context;
    private final CompletionChannel channel;
    private final MemorySegment cq;
    private final MemorySegment pollCq;
    private final MemorySegment reqNotifyCq;

    private final ExtendedPoll extendedPoll;
    /** Made and freed by someone else (see {@link #adopt}): never destroyed natively. */
    private final boolean adopted;

    private CompletionQueue(Context context, CompletionChannel channel, MemorySegment cq, Set<WcField> fields,
                            boolean adopted) {
        super(parents(context, channel));
        this.adopted = adopted;
        this.context = context;
        this.channel = channel;
        this.cq = cq;
        MemorySegment ops = ibv_context.ops(context.segment());
        this.pollCq = ibv_context_ops.poll_cq(ops);
        this.reqNotifyCq = ibv_context_ops.req_notify_cq(ops);
        this.extendedPoll = fields == null ? null : new ExtendedPoll(this, cq, fields);
        if (channel != null) {
            channel.attach(this);
        }
        context.register(cq, this);
    }

    static CompletionQueue create(Context context, int entries, CompletionChannel channel, int vector)
            throws RdmaException {
        checkArguments(context, entries, channel, vector);
        return create(() -> {
            MemorySegment cq = Verbs.pointer("ibv_create_cq", CREATE_CQ, context.segment(), entries,
                    MemorySegment.NULL, channel == null ? MemorySegment.NULL : channel.segment(), vector);
            return new CompletionQueue(context, channel, cq.reinterpret(ibv_cq.sizeof()), null, false);
        }, parents(context, channel));
    }

    /**
     * The completion queue over {@code cq}, which something other than libibverbs created (reporting to
     * {@code channel}'s native channel, or none) and will destroy.
     */
    static CompletionQueue adopt(Context context, CompletionChannel channel, MemorySegment cq) {
        return create(() -> new CompletionQueue(context, channel, cq.reinterpret(ibv_cq.sizeof()), null, true),
                parents(context, channel));
    }

    /** {@code ibv_create_cq_ex}, through the provider's {@code create_cq_ex} as verbs.h does. */
    static CompletionQueue createEx(Context context, int entries, CompletionChannel channel, int vector,
                                    Set<WcField> fields) throws RdmaException {
        checkArguments(context, entries, channel, vector);
        MemorySegment op = context.extendedOp(verbs_context.create_cq_ex$offset());
        if (op.equals(MemorySegment.NULL)) {
            throw new RdmaException("ibv_create_cq_ex", Errno.EOPNOTSUPP, Errno.name(Errno.EOPNOTSUPP),
                    context.device().name() + " has no extended completion queues");
        }
        long wcFlags = fields.stream().mapToLong(WcField::mask).reduce(0, (a, b) -> a | b);
        return create(() -> {
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
                        false);
            }
        }, parents(context, channel));
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

    private static NativeResource[] parents(Context context, CompletionChannel channel) {
        return channel == null ? new NativeResource[] {context} : new NativeResource[] {context, channel};
    }

    /**
     * Polls up to {@code wcs.capacity()} completions into {@code wcs} ({@code ibv_poll_cq}).
     *
     * @return how many were filled, 0 if none is ready
     * @throws IllegalStateException if the queue is closed
     * @throws NullPointerException  if {@code wcs} is null
     * @throws RdmaException         if the provider fails the poll
     */
    public int poll(WorkCompletions wcs) throws RdmaException {
        Objects.requireNonNull(wcs, "wcs");
        checkOpen();
        int n;
        enter();
        try {
            n = (int) DataPath.POLL_CQ.invokeExact(pollCq, cq.address(), wcs.capacity(), wcs.segment());
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        } finally {
            exit();
        }
        if (n < 0) {
            throw Errno.exception("ibv_poll_cq", -n);
        }
        return n;
    }

    /**
     * Arms the queue: the next completion (or, with {@code solicitedOnly}, the next solicited or error one) sends an
     * event to its channel ({@code ibv_req_notify_cq}).
     */
    public void requestNotification(boolean solicitedOnly) throws RdmaException {
        checkOpen();
        if (channel == null) {
            throw new IllegalStateException(this + " has no completion channel to notify");
        }
        int rc;
        enter();
        try {
            rc = (int) DataPath.REQ_NOTIFY_CQ.invokeExact(reqNotifyCq, cq.address(), solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        } finally {
            exit();
        }
        Verbs.check("ibv_req_notify_cq", rc);
    }

    /** Resizes the queue to at least {@code entries} entries ({@code ibv_resize_cq}). */
    public void resize(int entries) throws RdmaException {
        checkOpen();
        if (entries < 1) {
            throw new IllegalArgumentException("a completion queue needs at least 1 entry, not " + entries);
        }
        Verbs.check("ibv_resize_cq", ibverbs_h.ibv_resize_cq(cq, entries));
    }

    /** The number of entries the queue really has (at least what was asked). */
    public int capacity() {
        checkOpen();
        return ibv_cq.cqe(cq);
    }

    /**
     * The extended polling cursor ({@code ibv_start_poll} and friends).
     *
     * @throws IllegalStateException if this queue was not created by {@link Context#createCompletionQueueEx}
     */
    public ExtendedPoll extendedPoll() {
        checkOpen();
        if (extendedPoll == null) {
            throw new IllegalStateException(this + " is not extended: create it with createCompletionQueueEx");
        }
        return extendedPoll;
    }


    /** The channel it reports to, or {@code null}. */
    public CompletionChannel channel() {
        return channel;
    }

    public Context context() {
        return context;
    }

    MemorySegment segment() {
        return cq;
    }

    @Override
    protected void checkClosable() {
        if (extendedPoll != null) {
            extendedPoll.checkClosable();
        }
    }

    @Override
    protected void destroy() throws RdmaException {
        if (!adopted) {
            Verbs.check("ibv_destroy_cq", ibverbs_h.ibv_destroy_cq(cq));
        }
        context.unregister(cq);
        if (channel != null) {
            channel.detach(this);
        }
    }

    @Override
    public String toString() {
        return "CompletionQueue[" + context.device().name() + ", handle " + ibv_cq.handle(cq) + "]";
    }
}
