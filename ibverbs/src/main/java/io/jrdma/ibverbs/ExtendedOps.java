package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_context;
import io.jrdma.bindings.ibverbs.verbs_context;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The provider's {@code verbs_context} extensions, verbs.h's {@code verbs_get_ctx_op}: function pointers that exist
 * only when the provider's context is extended and new enough to hold them.
 */
@SuppressWarnings("restricted")
final class ExtendedOps {
    /** {@code __VERBS_ABI_IS_EXTENDED}: marks an ibv_context embedded in a verbs_context. */
    private static final long VERBS_ABI_IS_EXTENDED = -1L;
    private static final long VERBS_CONTEXT_OFFSET = verbs_context.context$offset();

    private ExtendedOps() {
    }

    /**
     * The {@code verbs_context} function pointer at {@code opOffset} of native context {@code ctx}, or NULL when the
     * provider's context is not extended or too old to have it.
     */
    static MemorySegment find(MemorySegment ctx, long opOffset) {
        if (ibv_context.abi_compat(ctx).address() != VERBS_ABI_IS_EXTENDED) {
            return MemorySegment.NULL;
        }
        MemorySegment vctx = MemorySegment.ofAddress(ctx.address() - VERBS_CONTEXT_OFFSET)
                .reinterpret(verbs_context.sizeof());
        if (verbs_context.sz(vctx) < verbs_context.sizeof() - opOffset) {
            return MemorySegment.NULL;
        }
        return vctx.get(ValueLayout.ADDRESS, opOffset);
    }

    /** {@link #find} of {@code context}. */
    static MemorySegment find(Context context, long opOffset) {
        return find(context.segment(), opOffset);
    }

    /**
     * {@link #find} of {@code context}, or the {@code EOPNOTSUPP} verbs.h answers with when the provider lacks it.
     *
     * @param verb    the verb, for the exception
     * @param lacking what the device then has no support for, e.g. "extended completion queues"
     */
    static MemorySegment require(Context context, long opOffset, String verb, String lacking)
            throws RdmaException {
        MemorySegment op = find(context, opOffset);
        if (op.equals(MemorySegment.NULL)) {
            throw new RdmaUnsupportedException(verb, context.device().name() + " has no " + lacking);
        }
        return op;
    }
}
