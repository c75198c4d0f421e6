package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The link layer under a port ({@code IBV_LINK_LAYER_*}); RoCE and Soft-RoCE ports are {@link #ETHERNET}.
 *
 * <pre>{@code boolean roce = ctx.queryPort(1).linkLayer() == LinkLayer.ETHERNET;}</pre>
 */
public enum LinkLayer {
    UNSPECIFIED(IBV_LINK_LAYER_UNSPECIFIED()), INFINIBAND(IBV_LINK_LAYER_INFINIBAND()), ETHERNET(IBV_LINK_LAYER_ETHERNET());

    private final int value;

    LinkLayer(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() {
        return value;
    }

    static LinkLayer of(int value) {
        return NativeEnums.of(values(), LinkLayer::value, value, UNSPECIFIED);
    }
}
