package io.jrdma.rdmacm;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.rdmacm.rdma_cma_h.*;

/**
 * The port space of a connection-manager id ({@code enum rdma_port_space}): TCP for reliable connections, UDP for
 * datagrams (and multicast), IB for native InfiniBand service IDs.
 *
 * <pre>{@code
 * CmId id = CmId.create(channel, PortSpace.UDP);   // a UD queue pair will go with it
 * }</pre>
 */
public enum PortSpace {
    TCP(RDMA_PS_TCP()), UDP(RDMA_PS_UDP()), IB(RDMA_PS_IB()), IPOIB(RDMA_PS_IPOIB());

    private final int value;

    PortSpace(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    static PortSpace of(int value) {
        return NativeEnums.of(values(), PortSpace::value, value, null);
    }
}
