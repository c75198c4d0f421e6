package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The logical state of a port ({@code enum ibv_port_state}).
 *
 * <pre>{@code if (ctx.queryPort(1).state() != PortState.ACTIVE) throw new IllegalStateException("link down");}</pre>
 */
public enum PortState {
    NOP(IBV_PORT_NOP()), DOWN(IBV_PORT_DOWN()), INIT(IBV_PORT_INIT()), ARMED(IBV_PORT_ARMED()),
    ACTIVE(IBV_PORT_ACTIVE()), ACTIVE_DEFER(IBV_PORT_ACTIVE_DEFER());

    private final int value;

    PortState(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() {
        return value;
    }

    static PortState of(int value) {
        return NativeEnums.of(values(), PortState::value, value, NOP);
    }
}
