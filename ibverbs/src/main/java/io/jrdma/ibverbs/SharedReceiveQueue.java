package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_context;
import io.jrdma.bindings.ibverbs.ibv_context_ops;
import io.jrdma.bindings.ibverbs.ibv_srq;
import io.jrdma.bindings.ibverbs.ibv_srq_attr;
import io.jrdma.bindings.ibverbs.ibv_srq_init_attr;
import io.jrdma.bindings.ibverbs.ibv_srq_init_attr_ex;
import io.jrdma.bindings.ibverbs.verbs_context;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A shared receive queue ({@code struct ibv_srq}): one pool of receive buffers for many queue pairs. When fewer
 * than its armed limit remain, an {@link AsyncEventType#SRQ_LIMIT_REACHED} event reports it.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=srq}
 */
@SuppressWarnings("restricted")
public final class SharedReceiveQueue implements AutoCloseable {
    private static final MethodHandle CREATE_SRQ = Errno.capturing(
            ibverbs_h.ibv_create_srq$address(), ibverbs_h.ibv_create_srq$descriptor());

    final ResourceGuard guard;
    private final ProtectionDomain pd;
    private final MemorySegment srq;
    /** The kernel's handle, kept for messages: the native struct is freed when this closes. */
    private final int handle;
    /** Replaced by {@link #resize}: a post racing a resize checks its chain against either size; the provider rules. */
    private volatile ReceiveQueue receives;

    /**
     * The sizes of a shared receive queue, and its limit (0: not armed).
     *
     * @param maxWr  outstanding receive requests
     * @param maxSge scatter/gather entries per request
     * @param limit  the armed low-water mark, 0 when not armed
     */
    public record Attributes(int maxWr, int maxSge, int limit) {
    }

    /**
     * Creates a shared receive queue: {@code pd.sharedReceiveQueue(256, 1).create()}, with the option below.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=srq-ex}
     */
    public static final class Builder {
        private final ProtectionDomain pd;
        private final int maxWr;
        private final int maxSge;
        private CompletionQueue cq;

        Builder(ProtectionDomain pd, int maxWr, int maxSge) {
            this.pd = pd;
            this.maxWr = maxWr;
            this.maxSge = maxSge;
        }

        /**
         * The completion queue its receives complete on ({@code ibv_create_srq_ex} with the PD, type and CQ
         * fields), where the provider has extended shared receive queues; default none (the queue pairs' own
         * receive queues decide). XRC and tag-matching queues are not offered.
         *
         * @param cq the completion queue, of the protection domain's context, or {@code null} for none
         * @return this builder
         */
        public Builder completionQueue(CompletionQueue cq) {
            this.cq = cq;
            return this;
        }

        /**
         * Creates the queue ({@code ibv_create_srq}, or {@code ibv_create_srq_ex} with a
         * {@link #completionQueue completion queue}).
         *
         * @return the new queue, a child of the protection domain (and of the completion queue, if any)
         * @throws RdmaException            if the verb fails, e.g. {@code EINVAL} past the device limits, or
         *     {@code EOPNOTSUPP} for a completion queue on a provider without {@code create_srq_ex} (Soft-RoCE)
         * @throws IllegalArgumentException if {@code maxWr} or {@code maxSge} is less than 1, or the completion queue
         *     is of another context (before any native call)
         * @throws IllegalStateException    if the protection domain or completion queue is closed
         */
        public SharedReceiveQueue create() throws RdmaException {
            return SharedReceiveQueue.create(pd, maxWr, maxSge, cq);
        }
    }

    private SharedReceiveQueue(ProtectionDomain pd, int maxWr, int maxSge, CompletionQueue cq,
                               ResourceGuard[] parents) throws RdmaException {
        this.guard = new ResourceGuard(this, ResourceGuard.Lifecycle.of(this::destroy, this::releaseIfLeaked));
        this.pd = pd;
        try (Arena arena = Arena.ofConfined()) {
            // struct ibv_srq_init_attr is the leading part of struct ibv_srq_init_attr_ex, as verbs.h relies on too.
            MemorySegment init = ibv_srq_init_attr_ex.allocate(arena);
            MemorySegment attr = ibv_srq_init_attr.attr(init);
            ibv_srq_attr.max_wr(attr, maxWr);
            ibv_srq_attr.max_sge(attr, maxSge);
            this.srq = (cq == null ? Verbs.pointer("ibv_create_srq", CREATE_SRQ, pd.segment(), init)
                    : createEx(pd, cq, init)).reinterpret(ibv_srq.sizeof());
            this.handle = ibv_srq.handle(srq);
            this.receives = new ReceiveQueue(guard, "ibv_post_srq_recv",
                    ibv_context_ops.post_srq_recv(ibv_context.ops(pd.context().segment())), srq.address(), pd,
                    ibv_srq_attr.max_sge(attr), ibv_srq_attr.max_wr(attr));
        }
        pd.context().asyncEvents.register(srq, this);
    }

    /**
     * {@code ibv_create_srq_ex} for a basic queue whose receives complete on {@code cq}: a completion queue in the
     * request is what sends verbs.h past {@code ibv_create_srq} to the provider's {@code create_srq_ex}.
     */
    private static MemorySegment createEx(ProtectionDomain pd, CompletionQueue cq, MemorySegment init)
            throws RdmaException {
        ibv_srq_init_attr_ex.comp_mask(init, ibverbs_h.IBV_SRQ_INIT_ATTR_PD() | ibverbs_h.IBV_SRQ_INIT_ATTR_TYPE()
                | ibverbs_h.IBV_SRQ_INIT_ATTR_CQ());
        ibv_srq_init_attr_ex.srq_type(init, ibverbs_h.IBV_SRQT_BASIC());
        ibv_srq_init_attr_ex.pd(init, pd.segment());
        ibv_srq_init_attr_ex.cq(init, cq.segment());
        Context ctx = pd.context();
        MemorySegment op = ExtendedOps.require(ctx, verbs_context.create_srq_ex$offset(), "ibv_create_srq_ex",
                "extended shared receive queues");
        return Verbs.pointer("ibv_create_srq_ex", Errno.capturing(op, verbs_context.create_srq_ex.descriptor()),
                ctx.segment(), init);
    }

    static SharedReceiveQueue create(ProtectionDomain pd, int maxWr, int maxSge, CompletionQueue cq)
            throws RdmaException {
        if (maxWr < 1 || maxSge < 1) {
            throw new IllegalArgumentException("a shared receive queue needs maxWr and maxSge >= 1, not "
                    + maxWr + " and " + maxSge);
        }
        if (cq != null && cq.context() != pd.context()) {
            throw new IllegalArgumentException(cq + " belongs to another device context than " + pd);
        }
        ResourceGuard[] parents = cq == null ? new ResourceGuard[] {pd.guard}
                : new ResourceGuard[] {pd.guard, cq.guard};
        return ResourceGuard.create(() -> new SharedReceiveQueue(pd, maxWr, maxSge, cq, parents), srq -> srq.guard,
                parents);
    }

    /**
     * Posts a chain of receive requests ({@code ibv_post_srq_recv} through the provider).
     *
     * @param head the first request of the chain
     * @throws RdmaException            if the provider refuses the chain, e.g. {@code ENOMEM} when the queue is full
     * @throws IllegalArgumentException if a request has more entries than the queue allows, or a region of another
     *     protection domain
     * @throws IllegalStateException    if the queue or a region in the chain is closed
     */
    public void postReceive(ReceiveWorkRequest head) throws RdmaException {
        receives.post(head);
    }

    /**
     * Arms the limit ({@code ibv_modify_srq} with {@code IBV_SRQ_LIMIT}): when fewer than {@code limit} requests
     * remain, the context reports {@link AsyncEventType#SRQ_LIMIT_REACHED} once; arm again after it.
     *
     * @param limit the low-water mark, in requests; at least 1
     * @throws RdmaException            if {@code ibv_modify_srq} fails, e.g. {@code EINVAL} for a limit above the
     *     queue size
     * @throws IllegalArgumentException if {@code limit} is less than 1
     * @throws IllegalStateException    if the queue is closed
     */
    public void armLimit(int limit) throws RdmaException {
        guard.enter();   // a concurrent close waits for this call
        try {
            if (limit < 1) {
                throw new IllegalArgumentException("the limit must be at least 1, not " + limit);
            }
            modify(0, limit, ibverbs_h.IBV_SRQ_LIMIT());
        } finally {
            guard.exit();
        }
    }

    /**
     * Resizes the queue to at least {@code maxWr} outstanding requests ({@code ibv_modify_srq} with
     * {@code IBV_SRQ_MAX_WR}); the requests posted stay.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=srq-resize}
     *
     * @param maxWr the new size, in requests; at least 1
     * @return the size the device gave (at least {@code maxWr})
     * @throws RdmaException            if {@code ibv_modify_srq} fails: {@code EINVAL} past the device's limit or
     *     below the armed limit, {@code EOPNOTSUPP} where the device cannot resize (no
     *     {@code IBV_DEVICE_SRQ_RESIZE})
     * @throws IllegalArgumentException if {@code maxWr} is less than 1
     * @throws IllegalStateException    if the queue is closed
     */
    public int resize(int maxWr) throws RdmaException {
        guard.enter();   // a concurrent close waits for this call
        try {
            if (maxWr < 1) {
                throw new IllegalArgumentException("a shared receive queue needs maxWr >= 1, not " + maxWr);
            }
            modify(maxWr, 0, ibverbs_h.IBV_SRQ_MAX_WR());
            int size = query().maxWr();
            receives = receives.resized(size);
            return size;
        } finally {
            guard.exit();
        }
    }

    /**
     * The number of this queue in the device's SRQ table ({@code ibv_get_srq_num}), which XRC senders address.
     *
     * @return the 24-bit SRQ number
     * @throws RdmaException         {@code EOPNOTSUPP} if the provider gives none (it has no XRC, as Soft-RoCE)
     * @throws IllegalStateException if the queue is closed
     */
    public int number() throws RdmaException {
        guard.enter();   // a concurrent close waits for this call
        try {
            MemorySegment op = ExtendedOps.require(pd.context(), verbs_context.get_srq_num$offset(),
                    "ibv_get_srq_num", "SRQ numbers");
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment number = arena.allocate(ValueLayout.JAVA_INT);
                int rc = verbs_context.get_srq_num.invoke(op, srq, number);
                if (Math.abs(rc) == Errno.EOPNOTSUPP) {
                    throw Errno.exception("ibv_get_srq_num", Errno.EOPNOTSUPP,
                            pd.context().device().name() + " gives no SRQ numbers (they serve XRC)");
                }
                Verbs.check("ibv_get_srq_num", rc);
                return number.get(ValueLayout.JAVA_INT, 0);
            }
        } finally {
            guard.exit();
        }
    }

    private void modify(int maxWr, int limit, int mask) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_srq_attr.allocate(arena);
            ibv_srq_attr.max_wr(attr, maxWr);
            ibv_srq_attr.srq_limit(attr, limit);
            Verbs.check("ibv_modify_srq", ibverbs_h.ibv_modify_srq(srq, attr, mask));
        }
    }

    /**
     * Its sizes and current limit ({@code ibv_query_srq}).
     *
     * @return its sizes and armed limit (0 once the limit was reached)
     * @throws RdmaException         if {@code ibv_query_srq} fails
     * @throws IllegalStateException if the queue is closed
     */
    public Attributes query() throws RdmaException {
        guard.enter();   // a concurrent close waits for this call
        try {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment attr = ibv_srq_attr.allocate(arena);
                Verbs.check("ibv_query_srq", ibverbs_h.ibv_query_srq(srq, attr));
                return new Attributes(ibv_srq_attr.max_wr(attr), ibv_srq_attr.max_sge(attr), ibv_srq_attr.srq_limit(attr));
            }
        } finally {
            guard.exit();
        }
    }

    /**
     * The protection domain it was created in.
     *
     * @return the protection domain
     */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    MemorySegment segment() {
        return srq;
    }

    /** Frees a leaked queue; it must not refer to this object. */
    private Runnable releaseIfLeaked() {
        MemorySegment leaked = srq;
        Context from = pd.context();
        return () -> {
            ibverbs_h.ibv_destroy_srq(leaked);
            from.asyncEvents.unregister(leaked, null);
        };
    }

    private void destroy() throws RdmaException {
        Verbs.check("ibv_destroy_srq", ibverbs_h.ibv_destroy_srq(srq));
        pd.context().asyncEvents.unregister(srq, this);
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
        return "SharedReceiveQueue[handle " + handle + "]";
    }
}
