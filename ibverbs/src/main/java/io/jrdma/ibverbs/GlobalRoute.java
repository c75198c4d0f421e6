package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_global_route;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The Global Route Header of a path ({@code struct ibv_global_route}): needed on RoCE and between InfiniBand
 * subnets.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=address-vector}
 *
 * @param dgid         the destination GID, 16 bytes in network order
 * @param sgidIndex    the local GID table index the packets leave from, 0..255
 * @param hopLimit     how many routers the packets may cross, 0..255 (the IPv6 hop limit / IPv4 TTL on RoCE v2)
 * @param trafficClass the traffic class, 0..255 (DSCP and ECN on RoCE v2)
 * @param flowLabel    the flow label, 20 bits (RoCE v2 derives its UDP source port from it)
 */
public record GlobalRoute(byte[] dgid, int sgidIndex, int hopLimit, int trafficClass, int flowLabel) {
    /**
     * The default hop limit: enough for a routed network, where a hop limit of 1 dies at the first router. On RoCE
     * the kernel replaces a queue pair's or address handle's hop limit with its route's when it resolves the MAC.
     */
    public static final int DEFAULT_HOP_LIMIT = 64;

    /**
     * Checks the ranges and copies the GID.
     *
     * @throws IllegalArgumentException if {@code dgid} is not 16 bytes or a field is out of range
     * @throws NullPointerException     if {@code dgid} is null
     */
    public GlobalRoute {
        dgid = GidEntry.copyOfGid(dgid);
        ConnectOptions.range("sgidIndex", sgidIndex, 0, 255);
        ConnectOptions.range("hopLimit", hopLimit, 0, 255);
        ConnectOptions.range("trafficClass", trafficClass, 0, 255);
        ConnectOptions.range("flowLabel", flowLabel, 0, 0xfffff);
    }

    /**
     * A route to {@code dgid} from local GID {@code sgidIndex}, hop limit {@link #DEFAULT_HOP_LIMIT}, traffic class
     * and flow label 0.
     *
     * @param dgid      the destination GID
     * @param sgidIndex the local GID index
     * @return the route
     * @throws IllegalArgumentException if {@code dgid} is not 16 bytes or {@code sgidIndex} not in [0, 255]
     */
    public static GlobalRoute to(byte[] dgid, int sgidIndex) {
        return new GlobalRoute(dgid, sgidIndex, DEFAULT_HOP_LIMIT, 0, 0);
    }

    /**
     * This route with another hop limit.
     *
     * @param hops 0..255
     * @return a new route
     * @throws IllegalArgumentException if {@code hops} is out of range
     */
    public GlobalRoute withHopLimit(int hops) {
        return new GlobalRoute(dgid, sgidIndex, hops, trafficClass, flowLabel);
    }

    /**
     * This route with another traffic class.
     *
     * @param tclass 0..255
     * @return a new route
     * @throws IllegalArgumentException if {@code tclass} is out of range
     */
    public GlobalRoute withTrafficClass(int tclass) {
        return new GlobalRoute(dgid, sgidIndex, hopLimit, tclass, flowLabel);
    }

    /**
     * This route with another flow label.
     *
     * @param label 20 bits
     * @return a new route
     * @throws IllegalArgumentException if {@code label} is out of range
     */
    public GlobalRoute withFlowLabel(int label) {
        return new GlobalRoute(dgid, sgidIndex, hopLimit, trafficClass, label);
    }

    /**
     * The destination GID.
     *
     * @return a fresh copy of the 16 bytes
     */
    @Override
    public byte[] dgid() {
        return dgid.clone();
    }

    void write(MemorySegment grh) {
        MemorySegment.copy(dgid, 0, ibv_global_route.dgid(grh), ValueLayout.JAVA_BYTE, 0, 16);
        ibv_global_route.sgid_index(grh, (byte) sgidIndex);
        ibv_global_route.hop_limit(grh, (byte) hopLimit);
        ibv_global_route.traffic_class(grh, (byte) trafficClass);
        ibv_global_route.flow_label(grh, flowLabel);
    }

    static GlobalRoute read(MemorySegment grh) {
        return new GlobalRoute(ibv_global_route.dgid(grh).toArray(ValueLayout.JAVA_BYTE),
                Byte.toUnsignedInt(ibv_global_route.sgid_index(grh)),
                Byte.toUnsignedInt(ibv_global_route.hop_limit(grh)),
                Byte.toUnsignedInt(ibv_global_route.traffic_class(grh)), ibv_global_route.flow_label(grh));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GlobalRoute g && Arrays.equals(dgid, g.dgid) && sgidIndex == g.sgidIndex
                && hopLimit == g.hopLimit && trafficClass == g.trafficClass && flowLabel == g.flowLabel;
    }

    @Override
    public int hashCode() {
        return ((Arrays.hashCode(dgid) * 31 + sgidIndex) * 31 + hopLimit) * 31 + trafficClass * 31 + flowLabel;
    }

    @Override
    public String toString() {
        return "GlobalRoute[dgid " + HexFormat.ofDelimiter(":").formatHex(dgid) + ", sgidIndex " + sgidIndex
                + ", hopLimit " + hopLimit + ", trafficClass " + trafficClass + ", flowLabel 0x"
                + Integer.toHexString(flowLabel) + "]";
    }
}
