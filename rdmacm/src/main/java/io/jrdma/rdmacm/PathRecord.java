package io.jrdma.rdmacm;

import io.jrdma.bindings.rdmacm.ibv_path_data;
import io.jrdma.bindings.rdmacm.ibv_path_record;
import io.jrdma.bindings.rdmacm.ibv_sa_path_rec;
import io.jrdma.bindings.rdmacm.rdma_cma_h;
import io.jrdma.ibverbs.Mtu;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A path between two ports, as the connection manager resolves it ({@code struct ibv_sa_path_rec}): the GIDs and LIDs
 * of both ends, the GRH fields, the service level, the P_Key, the path MTU, the static rate and the packet life time.
 * {@link CmId#paths()} gives the paths of a resolved route; {@link CmId#setPath} gives a route to an id instead of
 * resolving it ({@code RDMA_OPTION_IB_PATH}), e.g. one remembered from an earlier connection to the same peer or taken
 * from a path service.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=path}
 *
 * @param dgid           the destination GID, 16 bytes
 * @param sgid           the source GID, 16 bytes
 * @param dlid           the destination LID (0 on RoCE), 16 bits
 * @param slid           the source LID (0 on RoCE), 16 bits
 * @param flowLabel      the GRH flow label, 20 bits
 * @param hopLimit       the GRH hop limit, 0 to 255
 * @param trafficClass   the GRH traffic class, 0 to 255 (on RoCE v2 the IP TOS byte)
 * @param serviceLevel   the service level, 0 to 15
 * @param pkey           the partition key, 16 bits
 * @param mtu            the path MTU
 * @param rate           the static rate code ({@code enum ibv_rate}), 0 to 63
 * @param packetLifeTime the packet life time code (4.096 us * 2^code), 0 to 63
 */
public record PathRecord(byte[] dgid, byte[] sgid, int dlid, int slid, int flowLabel, int hopLimit,
                         int trafficClass, int serviceLevel, int pkey, Mtu mtu, int rate, int packetLifeTime) {
    /** Selector "exactly this value", in the top two bits of the MTU, rate and life time bytes of a path record. */
    private static final int EXACTLY = 2 << 6;

    /**
     * Checks every field's range and copies the GIDs.
     *
     * @throws IllegalArgumentException if a GID is not 16 bytes or a field is out of its range
     * @throws NullPointerException     if a GID or the MTU is null
     */
    public PathRecord {
        dgid = gid("dgid", dgid);
        sgid = gid("sgid", sgid);
        range("dlid", dlid, 0xffff);
        range("slid", slid, 0xffff);
        range("flowLabel", flowLabel, 0xfffff);
        range("hopLimit", hopLimit, 255);
        range("trafficClass", trafficClass, 255);
        range("serviceLevel", serviceLevel, 15);
        range("pkey", pkey, 0xffff);
        if (mtu == null) {
            throw new NullPointerException("mtu");
        }
        range("rate", rate, 63);
        range("packetLifeTime", packetLifeTime, 63);
    }

    /** {@return a copy of the destination GID} */
    @Override
    public byte[] dgid() {
        return dgid.clone();
    }

    /** {@return a copy of the source GID} */
    @Override
    public byte[] sgid() {
        return sgid.clone();
    }

    /**
     * A path as librdmacm keeps it in a resolved id's route; its 16- and 32-bit fields are big-endian. Null if its MTU
     * code is none of {@link Mtu}'s: on the passive side the path is what the peer's connect request says.
     */
    static PathRecord read(MemorySegment rec) {
        Mtu mtu = mtuOf(ibv_sa_path_rec.mtu(rec) & 0x3f);
        if (mtu == null) {
            return null;
        }
        return new PathRecord(ibv_sa_path_rec.dgid(rec).toArray(ValueLayout.JAVA_BYTE),
                ibv_sa_path_rec.sgid(rec).toArray(ValueLayout.JAVA_BYTE),
                Short.toUnsignedInt(Short.reverseBytes(ibv_sa_path_rec.dlid(rec))),
                Short.toUnsignedInt(Short.reverseBytes(ibv_sa_path_rec.slid(rec))),
                Integer.reverseBytes(ibv_sa_path_rec.flow_label(rec)) & 0xfffff,
                Byte.toUnsignedInt(ibv_sa_path_rec.hop_limit(rec)),
                Byte.toUnsignedInt(ibv_sa_path_rec.traffic_class(rec)),
                ibv_sa_path_rec.sl(rec) & 0xf,
                Short.toUnsignedInt(Short.reverseBytes(ibv_sa_path_rec.pkey(rec))),
                mtu,
                ibv_sa_path_rec.rate(rec) & 0x3f,
                ibv_sa_path_rec.packet_life_time(rec) & 0x3f);
    }

    /**
     * This path as {@code RDMA_OPTION_IB_PATH} takes it: a primary, bidirectional path ({@code struct ibv_path_data})
     * in the wire format of a path record, big-endian, every selector "exactly".
     */
    void writeTo(MemorySegment data) {
        data.fill((byte) 0);
        ibv_path_data.flags(data, rdma_cma_h.IBV_PATH_FLAG_GMP() | rdma_cma_h.IBV_PATH_FLAG_PRIMARY()
                | rdma_cma_h.IBV_PATH_FLAG_BIDIRECTIONAL());
        MemorySegment p = ibv_path_data.path(data);
        ibv_path_record.dgid(p).copyFrom(MemorySegment.ofArray(dgid));
        ibv_path_record.sgid(p).copyFrom(MemorySegment.ofArray(sgid));
        ibv_path_record.dlid(p, Short.reverseBytes((short) dlid));
        ibv_path_record.slid(p, Short.reverseBytes((short) slid));
        ibv_path_record.flowlabel_hoplimit(p, Integer.reverseBytes(flowLabel << 8 | hopLimit));
        ibv_path_record.tclass(p, (byte) trafficClass);
        // Reversible, one path.
        ibv_path_record.reversible_numpath(p, (byte) 0x81);
        ibv_path_record.pkey(p, Short.reverseBytes((short) pkey));
        ibv_path_record.qosclass_sl(p, Short.reverseBytes((short) serviceLevel));
        ibv_path_record.mtu(p, (byte) (EXACTLY | mtu.value()));
        ibv_path_record.rate(p, (byte) (EXACTLY | rate));
        ibv_path_record.packetlifetime(p, (byte) (EXACTLY | packetLifeTime));
    }

    private static Mtu mtuOf(int value) {
        for (Mtu m : Mtu.values()) {
            if (m.value() == value) {
                return m;
            }
        }
        return null;
    }

    private static byte[] gid(String name, byte[] gid) {
        if (gid.length != 16) {
            throw new IllegalArgumentException(name + " must be 16 bytes, not " + gid.length);
        }
        return gid.clone();
    }

    private static void range(String name, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(name + " must be 0 to " + max + ", not " + value);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathRecord p && Arrays.equals(dgid, p.dgid) && Arrays.equals(sgid, p.sgid)
                && dlid == p.dlid && slid == p.slid && flowLabel == p.flowLabel && hopLimit == p.hopLimit
                && trafficClass == p.trafficClass && serviceLevel == p.serviceLevel && pkey == p.pkey
                && mtu == p.mtu && rate == p.rate && packetLifeTime == p.packetLifeTime;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(dgid) * 31 + Arrays.hashCode(sgid);
    }

    @Override
    public String toString() {
        HexFormat hex = HexFormat.of();
        return "PathRecord[sgid " + hex.formatHex(sgid) + " -> dgid " + hex.formatHex(dgid) + ", lids " + slid + "->"
                + dlid + ", hopLimit " + hopLimit + ", trafficClass " + trafficClass + ", flowLabel " + flowLabel
                + ", sl " + serviceLevel + ", pkey 0x" + Integer.toHexString(pkey) + ", " + mtu + ", rate " + rate
                + ", packetLifeTime " + packetLifeTime + "]";
    }
}
