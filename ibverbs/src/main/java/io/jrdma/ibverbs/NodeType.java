package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * What kind of RDMA node a device is ({@code enum ibv_node_type}).
 *
 * <pre>{@code if (device.nodeType() == NodeType.CA) { ... } }</pre>
 */
public enum NodeType {
    UNKNOWN(IBV_NODE_UNKNOWN()), CA(IBV_NODE_CA()), SWITCH(IBV_NODE_SWITCH()), ROUTER(IBV_NODE_ROUTER()),
    RNIC(IBV_NODE_RNIC()), USNIC(IBV_NODE_USNIC()), USNIC_UDP(IBV_NODE_USNIC_UDP()), UNSPECIFIED(IBV_NODE_UNSPECIFIED());

    private final int value;

    NodeType(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() {
        return value;
    }

    static NodeType of(int value) {
        return NativeEnums.of(values(), NodeType::value, value, UNKNOWN);
    }
}
