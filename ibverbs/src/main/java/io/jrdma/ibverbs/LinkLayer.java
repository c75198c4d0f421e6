package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The link layer under a port ({@code IBV_LINK_LAYER_*}); RoCE and Soft-RoCE ports are {@link #ETHERNET}.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=link-layer}
 */
public enum LinkLayer {
    /** Not reported (older providers; treat as InfiniBand). */
    UNSPECIFIED(IBV_LINK_LAYER_UNSPECIFIED()),
    /** InfiniBand: addressed by LID. */
    INFINIBAND(IBV_LINK_LAYER_INFINIBAND()),
    /** Ethernet (RoCE, iWARP): addressed by GID, LIDs are 0. */
    ETHERNET(IBV_LINK_LAYER_ETHERNET());

    private final int value;

    LinkLayer(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    static LinkLayer of(int value) {
        return NativeEnums.of(values(), LinkLayer::value, value, UNSPECIFIED);
    }
}
