package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.ResourceGuard;

import java.lang.foreign.MemorySegment;

/**
 * Where chains of {@link ReceiveWorkRequest}s are posted: a queue pair's own receive queue or a shared one, with the
 * limits a chain is checked against. Made with its queue, so that a post allocates nothing.
 *
 * @param guard  the guard of the queue pair or shared receive queue
 * @param verb   the verb a failed post names
 * @param postFn the provider's {@code post_recv} or {@code post_srq_recv}
 * @param queue  the address of the {@code struct ibv_qp} or {@code struct ibv_srq}
 * @param pd     the protection domain the requests' regions must belong to
 * @param maxSge scatter/gather entries per request
 * @param maxWr  requests per chain
 */
record ReceiveQueue(ResourceGuard guard, String verb, MemorySegment postFn, long queue, ProtectionDomain pd,
                    int maxSge, int maxWr) {

    /** This queue after a resize to {@code maxWr} requests. */
    ReceiveQueue resized(int maxWr) {
        return new ReceiveQueue(guard, verb, postFn, queue, pd, maxSge, maxWr);
    }

    /**
     * Posts the chain starting at {@code head}: checks it first, as a send post does, then holds the queue open for
     * the call. Kept small, so that it inlines into the public post.
     */
    void post(ReceiveWorkRequest head) throws RdmaException {
        head.checkChain(maxSge, maxWr, pd);
        guard.enter();   // refuses a closed queue, and makes a concurrent close wait for the post
        int rc;
        try {
            rc = head.postChain(postFn, queue);
        } finally {
            guard.exit();
        }
        if (rc != 0) {
            throw head.notPosted(verb, rc);
        }
    }
}
