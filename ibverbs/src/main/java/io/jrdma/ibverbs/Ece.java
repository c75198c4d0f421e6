package io.jrdma.ibverbs;

/**
 * Enhanced connection establishment options ({@code struct ibv_ece}): vendor-specific features two queue pairs of
 * the same vendor agree on while connecting. A queue pair reports what it supports ({@link QueuePair#ece()}); the
 * connection manager carries it to the peer, which asks its own queue pair for those options
 * ({@link QueuePair#setEce}) before RTR and answers with what its provider accepted.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=ece}
 *
 * @param vendorId the vendor whose options these are, as its provider names it, 24 bits as the CM messages carry
 *                 it; 0 means none (the peer offered nothing)
 * @param options  the vendor's option bits
 */
public record Ece(int vendorId, int options) {
    /**
     * Checks the vendor id.
     *
     * @throws IllegalArgumentException if {@code vendorId} is negative or over 24 bits
     */
    public Ece {
        ConnectOptions.range("vendorId", vendorId, 0, 0xffffff);
    }
}
