package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnum;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * What kind of RDMA node a device is ({@code enum ibv_node_type}).
 *
 * <pre>{@code if (device.nodeType() == NodeType.CA) { ... } }</pre>
 */
public enum NodeType implements NativeEnum {
    UNKNOWN(IBV_NODE_UNKNOWN()), CA(IBV_NODE_CA()), SWITCH(IBV_NODE_SWITCH()), ROUTER(IBV_NODE_ROUTER()),
    RNIC(IBV_NODE_RNIC()), USNIC(IBV_NODE_USNIC()), USNIC_UDP(IBV_NODE_USNIC_UDP()), UNSPECIFIED(IBV_NODE_UNSPECIFIED());

    private final int value;

    NodeType(int value) {
        this.value = value;
    }

    /** The C value. */
    @Override
    public int value() {
        return value;
    }

    static NodeType of(int value) {
        return NativeEnum.of(values(), value, UNKNOWN);
    }
}
