package io.jrdma.ibverbs;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What a peer needs to connect a queue pair to this one: LID, QP number, starting PSN and GID (the fields
 * {@code ibv_rc_pingpong} exchanges). Exchange it however you like, e.g. as {@link #toBytes()} over a socket.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=endpoint}
 *
 * @param lid the port LID (0 on RoCE)
 * @param qpn the queue pair number (24 bits)
 * @param psn the first packet sequence number (24 bits)
 * @param gid the 16-byte GID, all zero when only LIDs route (InfiniBand without GRH)
 */
public record Endpoint(int lid, int qpn, int psn, byte[] gid) {
    /** The size of {@link #toBytes()}. */
    public static final int BYTES = 4 + 4 + 4 + 16;

    /**
     * Checks the field widths and copies the GID.
     *
     * @throws IllegalArgumentException if {@code lid} is over 16 bits, {@code qpn} or {@code psn} over 24 bits, or
     *     {@code gid} not 16 bytes long
     */
    public Endpoint {
        if (lid < 0 || lid > 0xffff) {
            throw new IllegalArgumentException("LID is 16 bits: " + lid);
        }
        if ((qpn & ~0xffffff) != 0 || (psn & ~0xffffff) != 0) {
            throw new IllegalArgumentException("QPN and PSN are 24 bits: qpn " + qpn + ", psn " + psn);
        }
        gid = GidEntry.copyOfGid(gid);
    }

    /**
     * The 16 GID bytes, network order.
     *
     * @return a fresh copy
     */
    @Override
    public byte[] gid() {
        return gid.clone();
    }

    /**
     * Whether the GID is set (RoCE always; InfiniBand across subnets).
     *
     * @return whether any GID byte is non-zero
     */
    public boolean hasGid() {
        for (byte b : gid) {
            if (b != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * A fixed 28-byte big-endian encoding: lid, qpn, psn, gid.
     *
     * @return {@link #BYTES} bytes
     */
    public byte[] toBytes() {
        return ByteBuffer.allocate(BYTES).putInt(lid).putInt(qpn).putInt(psn).put(gid).array();
    }

    /**
     * Decodes {@link #toBytes()}.
     *
     * @param bytes what {@link #toBytes()} produced
     * @return the endpoint
     * @throws IllegalArgumentException if {@code bytes} is not {@link #BYTES} long or holds out-of-range fields
     */
    public static Endpoint fromBytes(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("an endpoint is " + BYTES + " bytes, not " + bytes.length);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int lid = b.getInt();
        int qpn = b.getInt();
        int psn = b.getInt();
        byte[] gid = new byte[16];
        b.get(gid);
        return new Endpoint(lid, qpn, psn, gid);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Endpoint e && lid == e.lid && qpn == e.qpn && psn == e.psn && Arrays.equals(gid, e.gid);
    }

    @Override
    public int hashCode() {
        return (qpn * 31 + psn) * 31 + Arrays.hashCode(gid);
    }

    @Override
    public String toString() {
        return String.format("Endpoint[lid 0x%04x, qpn 0x%06x, psn 0x%06x, gid %s]", lid, qpn, psn,
                HexFormat.ofDelimiter(":").formatHex(gid));
    }
}
