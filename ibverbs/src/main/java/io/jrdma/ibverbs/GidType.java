package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The type of a GID table entry ({@code enum ibv_gid_type}): RoCE v2 entries are routable over UDP/IP.
 *
 * <pre>{@code GidEntry e = ctx.queryGid(1, 1); if (e.type() == GidType.ROCE_V2) { ... }}</pre>
 */
public enum GidType {
    IB(IBV_GID_TYPE_IB()), ROCE_V1(IBV_GID_TYPE_ROCE_V1()), ROCE_V2(IBV_GID_TYPE_ROCE_V2());

    private final int value;

    GidType(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() {
        return value;
    }

    static GidType of(int value) {
        return NativeEnums.of(values(), GidType::value, value, IB);
    }
}
