package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The type of a GID table entry ({@code enum ibv_gid_type}): RoCE v2 entries are routable over UDP/IP.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=gid-type}
 */
public enum GidType {
    /** An InfiniBand GID. */
    IB(IBV_GID_TYPE_IB()),
    /** RoCE v1: Ethernet frames, not routable. */
    ROCE_V1(IBV_GID_TYPE_ROCE_V1()),
    /** RoCE v2: UDP/IP packets, routable; what Soft-RoCE uses. */
    ROCE_V2(IBV_GID_TYPE_ROCE_V2());

    private final int value;

    GidType(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    static GidType of(int value) {
        return NativeEnums.of(values(), GidType::value, value, IB);
    }
}
