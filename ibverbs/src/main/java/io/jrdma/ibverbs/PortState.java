package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The logical state of a port ({@code enum ibv_port_state}).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=port-state}
 */
public enum PortState {
    /** No state change (also the value of a state this version of jrdma does not know). */
    NOP(IBV_PORT_NOP()),
    /** The link is down. */
    DOWN(IBV_PORT_DOWN()),
    /** The link is up but the subnet manager has not configured the port: only management traffic. */
    INIT(IBV_PORT_INIT()),
    /** Configured, waiting to become active. */
    ARMED(IBV_PORT_ARMED()),
    /** The port carries traffic. */
    ACTIVE(IBV_PORT_ACTIVE()),
    /** Active, but about to go down (deferred error). */
    ACTIVE_DEFER(IBV_PORT_ACTIVE_DEFER());

    private final int value;

    PortState(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    static PortState of(int value) {
        return NativeEnums.of(values(), PortState::value, value, NOP);
    }
}
