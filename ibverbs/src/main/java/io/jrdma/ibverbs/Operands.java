package io.jrdma.ibverbs;

/**
 * Which member of a send request's native {@code wr} union holds the operands: the remote memory of an RDMA
 * operation, the operands of an atomic, or a UD destination (an address handle pointer). The three overlap, so a
 * request knows which it wrote last and an opcode names which it needs: a post never sends one member's bytes as
 * another's (an address handle's heap address as a remote address, or a remote address as an address handle).
 */
enum Operands {
    /** Nothing written since the union was last zeroed. */
    NONE,
    /** {@code wr.rdma}: remote address and rkey. */
    RDMA,
    /** {@code wr.atomic}: remote address, rkey, compare/add and swap. */
    ATOMIC,
    /** {@code wr.ud}: address handle, remote QPN and Q_Key. */
    DATAGRAM
}
