package io.jrdma.ibverbs.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Downcall handles for the inline data-path verbs of verbs.h, which call the provider through
 * {@code ctx->ops}: created once, taking the function pointer as first argument. They never block, so they are
 * critical calls (no thread-state transition).
 *
 * <p>Pointers to objects whose lifetime the caller already guards pass as 64-bit integers: the verbs object (held
 * by the call's in-flight count) and a request's bad-request slot (allocated in the same arena as the request, which
 * the downcall keeps alive as a segment). On LP64 a pointer and a {@code long} travel in the same register, and the
 * call is shorter: every segment argument costs a liveness check, and the post must stay small enough for the JIT
 * to inline it into its caller.
 */
@SuppressWarnings("restricted")
public final class DataPath {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    /** A post: the queue, the first request, the bad-request slot. */
    private static final FunctionDescriptor POST = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG);

    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)} */
    public static final MethodHandle POST_SEND = LINKER.downcallHandle(POST, CRITICAL);
    /**
     * {@code int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **)}, and
     * {@code post_srq_recv}, whose C signature is the same (a {@code struct ibv_srq *} first): one handle, so that
     * the receive post has a single call site.
     */
    public static final MethodHandle POST_RECV = LINKER.downcallHandle(POST, CRITICAL);
    /** {@code int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *)} */
    public static final MethodHandle POLL_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS), CRITICAL);
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int)} */
    public static final MethodHandle REQ_NOTIFY_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT), CRITICAL);

    private DataPath() {
    }

    /**
     * What a data-path call throws when its downcall threw {@code t}: a runtime exception (a closed or foreign arena)
     * as it is, anything else (nothing checked can come) as an error. One small handler keeps the post inlinable.
     */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException refused) {
            return refused;
        }
        if (t instanceof Error error) {
            throw error;
        }
        throw new AssertionError(t);
    }
}
