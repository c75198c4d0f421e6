package io.jrdma.tool.perf;

import io.jrdma.ibverbs.Endpoint;

import java.nio.ByteBuffer;

/**
 * What the two sides of {@code jrdma perf} tell each other: the setup they run (so that mismatched command lines
 * fail at once), where their buffer is and its rkey, and over TCP the queue pair's endpoint (LID, QPN, PSN, GID).
 * It travels as {@value #BYTES} big-endian bytes: magic, setup hash, address, rkey, then the endpoint (zeros when
 * rdma_cm connects the queue pairs and this travels as private data).
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=peer}
 *
 * @param setupHash hash of {@link PerfOptions#setup()}
 * @param address   the buffer's virtual address
 * @param rkey      the buffer's remote key
 * @param endpoint  the queue pair's endpoint, or {@code null} under rdma_cm
 */
record PerfPeer(int setupHash, long address, int rkey, Endpoint endpoint) {
    /** "JPF1". */
    static final int MAGIC = 0x4a504631;
    static final int BYTES = 4 + 4 + 8 + 4 + Endpoint.BYTES;

    byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(BYTES).putInt(MAGIC).putInt(setupHash).putLong(address).putInt(rkey);
        if (endpoint != null) {
            b.put(endpoint.toBytes());
        }
        return b.array();
    }

    /** Decodes {@link #toBytes()}, checking that the peer is a {@code jrdma perf} of the same setup. */
    static PerfPeer fromBytes(byte[] bytes, int expectedSetupHash, boolean withEndpoint) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (bytes.length < BYTES || b.getInt() != MAGIC) {
            throw new IllegalStateException("perf: the peer is not jrdma perf (perftest's own exchange is not "
                    + "spoken)");
        }
        int setup = b.getInt();
        if (setup != expectedSetupHash) {
            throw new IllegalStateException("perf: the peer runs another test or other -s/-a/-n/-D/--warmup: "
                    + "both sides need the same");
        }
        long address = b.getLong();
        int rkey = b.getInt();
        byte[] endpoint = new byte[Endpoint.BYTES];
        b.get(endpoint);
        return new PerfPeer(setup, address, rkey, withEndpoint ? Endpoint.fromBytes(endpoint) : null);
    }
}
