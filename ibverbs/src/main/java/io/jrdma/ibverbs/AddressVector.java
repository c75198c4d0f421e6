package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_ah_attr;

import java.lang.foreign.MemorySegment;

/**
 * A path to a remote port ({@code struct ibv_ah_attr}): what an {@link AddressHandle} is made from and what a
 * connected queue pair's primary and alternate paths are ({@link QpAttribute#AV}, {@link QpAttribute#ALT_PATH}).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=address-vector}
 *
 * @param dlid           the destination LID (0 on RoCE)
 * @param serviceLevel   the service level, 0..15
 * @param sourcePathBits the source path bits (LMC), 0..127
 * @param staticRate     the injection rate limit, an {@code enum ibv_rate} value (0: the port's rate)
 * @param port           the local port, 1..255 (0 only in what a query reports of a path never set)
 * @param globalRoute    the Global Route Header, or {@code null} to route by LID only
 */
public record AddressVector(int dlid, int serviceLevel, int sourcePathBits, int staticRate, int port,
                            GlobalRoute globalRoute) {
    /**
     * Checks the ranges.
     *
     * @throws IllegalArgumentException if a field is out of range
     */
    public AddressVector {
        ConnectOptions.range("dlid", dlid, 0, 0xffff);
        ConnectOptions.range("serviceLevel", serviceLevel, 0, 15);
        ConnectOptions.range("sourcePathBits", sourcePathBits, 0, 127);
        ConnectOptions.range("staticRate", staticRate, 0, 255);
        ConnectOptions.range("port", port, 0, 255);
    }

    /**
     * The path to {@code remote} from local {@code port}: by LID, and with a {@link GlobalRoute#to GRH} to its GID
     * (hop limit {@link GlobalRoute#DEFAULT_HOP_LIMIT}) unless {@code gidIndex} is -1.
     *
     * @param remote   the peer's endpoint
     * @param port     the local port, from 1
     * @param gidIndex the local GID index for the GRH, or -1 for none
     * @return the path, service level 0, full rate
     * @throws IllegalArgumentException if {@code port} or {@code gidIndex} is out of range, or {@code gidIndex} is -1
     *     but the peer has no LID (RoCE)
     */
    public static AddressVector to(Endpoint remote, int port, int gidIndex) {
        ConnectOptions.range("port", port, 1, 255);
        if (gidIndex < 0 && remote.lid() == 0) {
            throw new IllegalArgumentException("the peer has no LID, so it needs a GID path: give a GID index");
        }
        return new AddressVector(remote.lid(), 0, 0, 0, port,
                gidIndex < 0 ? null : GlobalRoute.to(remote.gid(), gidIndex));
    }

    /**
     * This path at another service level.
     *
     * @param sl 0..15
     * @return a new path
     * @throws IllegalArgumentException if {@code sl} is out of range
     */
    public AddressVector withServiceLevel(int sl) {
        return new AddressVector(dlid, sl, sourcePathBits, staticRate, port, globalRoute);
    }

    /**
     * This path at another static rate.
     *
     * @param rate an {@code enum ibv_rate} value, 0 for the port's rate
     * @return a new path
     * @throws IllegalArgumentException if {@code rate} is out of range
     */
    public AddressVector withStaticRate(int rate) {
        return new AddressVector(dlid, serviceLevel, sourcePathBits, rate, port, globalRoute);
    }

    /**
     * This path with other source path bits.
     *
     * @param bits 0..127
     * @return a new path
     * @throws IllegalArgumentException if {@code bits} is out of range
     */
    public AddressVector withSourcePathBits(int bits) {
        return new AddressVector(dlid, serviceLevel, bits, staticRate, port, globalRoute);
    }

    /**
     * This path with another Global Route Header.
     *
     * @param grh the header, or {@code null} for none
     * @return a new path
     */
    public AddressVector withGlobalRoute(GlobalRoute grh) {
        return new AddressVector(dlid, serviceLevel, sourcePathBits, staticRate, port, grh);
    }

    void write(MemorySegment ah) {
        ibv_ah_attr.dlid(ah, (short) dlid);
        ibv_ah_attr.sl(ah, (byte) serviceLevel);
        ibv_ah_attr.src_path_bits(ah, (byte) sourcePathBits);
        ibv_ah_attr.static_rate(ah, (byte) staticRate);
        ibv_ah_attr.port_num(ah, (byte) port);
        ibv_ah_attr.is_global(ah, (byte) (globalRoute == null ? 0 : 1));
        if (globalRoute != null) {
            globalRoute.write(ibv_ah_attr.grh(ah));
        }
    }

    static AddressVector read(MemorySegment ah) {
        return new AddressVector(Short.toUnsignedInt(ibv_ah_attr.dlid(ah)), Byte.toUnsignedInt(ibv_ah_attr.sl(ah)),
                Byte.toUnsignedInt(ibv_ah_attr.src_path_bits(ah)), Byte.toUnsignedInt(ibv_ah_attr.static_rate(ah)),
                Byte.toUnsignedInt(ibv_ah_attr.port_num(ah)),
                ibv_ah_attr.is_global(ah) == 0 ? null : GlobalRoute.read(ibv_ah_attr.grh(ah)));
    }
}
