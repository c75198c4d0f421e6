package io.jrdma.ibverbs.internal;

import io.jrdma.bindings.ibverbs.ibv_context_ops;

import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * Downcall handles for the inline data-path verbs of verbs.h, which call the provider through
 * {@code ctx->ops}: created once, taking the function pointer as first argument. They never block, so they are
 * critical calls (no thread-state transition).
 */
public final class DataPath {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)} */
    public static final MethodHandle POST_SEND = LINKER.downcallHandle(ibv_context_ops.post_send.descriptor(), CRITICAL);
    /**
     * {@code int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **)}, and
     * {@code post_srq_recv}, whose C signature is the same (a {@code struct ibv_srq *} first): one handle, so that
     * the receive post has a single call site.
     */
    public static final MethodHandle POST_RECV = LINKER.downcallHandle(ibv_context_ops.post_recv.descriptor(), CRITICAL);
    /** {@code int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *)} */
    public static final MethodHandle POLL_CQ = LINKER.downcallHandle(ibv_context_ops.poll_cq.descriptor(), CRITICAL);
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int)} */
    public static final MethodHandle REQ_NOTIFY_CQ = LINKER.downcallHandle(
            ibv_context_ops.req_notify_cq.descriptor(), CRITICAL);

    private DataPath() {
    }
}
