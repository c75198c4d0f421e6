package io.jrdma.rdmacm;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.rdmacm.rdma_cma_h.*;

/**
 * The port space of a connection-manager id ({@code enum rdma_port_space}): TCP for reliable connections, UDP for
 * datagrams (and multicast), IB for native InfiniBand service IDs.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=port-space}
 */
public enum PortSpace {
    /** Reliable connections (RC queue pairs), addressed like TCP ports. */
    TCP(RDMA_PS_TCP()),
    /** Datagrams (UD queue pairs) and multicast, addressed like UDP ports. */
    UDP(RDMA_PS_UDP()),
    /** Any queue pair type, under native InfiniBand service IDs. */
    IB(RDMA_PS_IB()),
    /** IP over InfiniBand's port space (used by the kernel; rarely by applications). */
    IPOIB(RDMA_PS_IPOIB());

    private final int value;

    PortSpace(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    static PortSpace of(int value) {
        return NativeEnums.of(values(), PortSpace::value, value, null);
    }
}
