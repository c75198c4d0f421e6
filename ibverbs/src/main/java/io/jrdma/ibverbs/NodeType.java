package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * What kind of RDMA node a device is ({@code enum ibv_node_type}).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=node-type}
 */
public enum NodeType {
    /** Unknown, or a value this version of jrdma does not know. */
    UNKNOWN(IBV_NODE_UNKNOWN()),
    /** A channel adapter: InfiniBand and RoCE NICs (including Soft-RoCE). */
    CA(IBV_NODE_CA()),
    /** An InfiniBand switch. */
    SWITCH(IBV_NODE_SWITCH()),
    /** An InfiniBand router. */
    ROUTER(IBV_NODE_ROUTER()),
    /** An iWARP NIC. */
    RNIC(IBV_NODE_RNIC()),
    /** A Cisco usNIC. */
    USNIC(IBV_NODE_USNIC()),
    /** A Cisco usNIC over UDP. */
    USNIC_UDP(IBV_NODE_USNIC_UDP()),
    /** A node the kernel does not classify (e.g. EFA). */
    UNSPECIFIED(IBV_NODE_UNSPECIFIED());

    private final int value;

    NodeType(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    static NodeType of(int value) {
        return NativeEnums.of(values(), NodeType::value, value, UNKNOWN);
    }
}
