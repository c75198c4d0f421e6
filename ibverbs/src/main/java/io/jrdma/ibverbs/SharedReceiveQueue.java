package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_context;
import io.jrdma.bindings.ibverbs.ibv_context_ops;
import io.jrdma.bindings.ibverbs.ibv_srq;
import io.jrdma.bindings.ibverbs.ibv_srq_attr;
import io.jrdma.bindings.ibverbs.ibv_srq_init_attr;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
    private final MemorySegment postSrqRecvFn;
    private final int maxSge;
    private final int maxWr;

    /**
     * The sizes of a shared receive queue, and its limit (0: not armed).
     *
     * @param maxWr  outstanding receive requests
     * @param maxSge scatter/gather entries per request
     * @param limit  the armed low-water mark, 0 when not armed
     */
    public record Attributes(int maxWr, int maxSge, int limit) {
    }

    private SharedReceiveQueue(ProtectionDomain pd, int maxWr, int maxSge) throws RdmaException {
        this.guard = new ResourceGuard(this, this::destroy, pd.guard);
        this.pd = pd;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment init = ibv_srq_init_attr.allocate(arena);
            MemorySegment attr = ibv_srq_init_attr.attr(init);
            ibv_srq_attr.max_wr(attr, maxWr);
            ibv_srq_attr.max_sge(attr, maxSge);
            this.srq = Verbs.pointer("ibv_create_srq", CREATE_SRQ, pd.segment(), init).reinterpret(ibv_srq.sizeof());
            this.maxSge = ibv_srq_attr.max_sge(attr);
            this.maxWr = ibv_srq_attr.max_wr(attr);
        }
        this.postSrqRecvFn = ibv_context_ops.post_srq_recv(ibv_context.ops(pd.context().segment()));
        pd.context().register(srq, this);
    }

    static SharedReceiveQueue create(ProtectionDomain pd, int maxWr, int maxSge) throws RdmaException {
        if (maxWr < 1 || maxSge < 1) {
            throw new IllegalArgumentException("a shared receive queue needs maxWr and maxSge >= 1, not "
                    + maxWr + " and " + maxSge);
        }
        return ResourceGuard.create(() -> new SharedReceiveQueue(pd, maxWr, maxSge), srq -> srq.guard, pd.guard);
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
        head.post(guard, true, postSrqRecvFn, srq, maxSge, maxWr, pd);
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
        guard.checkOpen();
        if (limit < 1) {
            throw new IllegalArgumentException("the limit must be at least 1, not " + limit);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_srq_attr.allocate(arena);
            ibv_srq_attr.srq_limit(attr, limit);
            Verbs.check("ibv_modify_srq", ibverbs_h.ibv_modify_srq(srq, attr, ibverbs_h.IBV_SRQ_LIMIT()));
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
        guard.checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_srq_attr.allocate(arena);
            Verbs.check("ibv_query_srq", ibverbs_h.ibv_query_srq(srq, attr));
            return new Attributes(ibv_srq_attr.max_wr(attr), ibv_srq_attr.max_sge(attr), ibv_srq_attr.srq_limit(attr));
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

    private void destroy() throws RdmaException {
        Verbs.check("ibv_destroy_srq", ibverbs_h.ibv_destroy_srq(srq));
        pd.context().unregister(srq);
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
        return "SharedReceiveQueue[handle " + ibv_srq.handle(srq) + "]";
    }
}
