package io.jrdma.ibverbs;

import java.net.Inet6Address;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One entry of a port's GID table ({@code struct ibv_gid_entry}).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=gid-entry}
 *
 * @param gid         the 16 GID bytes, network order (a copy is kept and returned)
 * @param index       index in the table
 * @param port        port number
 * @param type        IB, RoCE v1 or RoCE v2
 * @param netdevIndex ifindex of the network device behind a RoCE GID, 0 for IB
 */
public record GidEntry(byte[] gid, int index, int port, GidType type, int netdevIndex) {

    /**
     * Checks and copies the GID.
     *
     * @throws IllegalArgumentException if {@code gid} is not 16 bytes long
     */
    public GidEntry {
        gid = copyOfGid(gid);
    }

    /** A private copy of a 16-byte GID, checked. */
    static byte[] copyOfGid(byte[] gid) {
        if (gid.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + gid.length);
        }
        return gid.clone();
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
     * The GID as an IPv6 address (RoCE GIDs embed the interface's IPv4 or IPv6 address).
     *
     * @return the address; the GID of an IPv4 interface is an IPv4-mapped address ({@code ::ffff:a.b.c.d})
     */
    public Inet6Address address() {
        try {
            return Inet6Address.getByAddress(null, gid, null);
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible); // only thrown for a wrong length, excluded above
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GidEntry e && Arrays.equals(gid, e.gid) && index == e.index && port == e.port
                && type == e.type && netdevIndex == e.netdevIndex;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(gid) * 31 + index;
    }

    @Override
    public String toString() {
        return "GidEntry[port=" + port + ", index=" + index + ", type=" + type + ", gid="
                + HexFormat.ofDelimiter(":").formatHex(gid) + ", netdevIndex=" + netdevIndex + "]";
    }
}
