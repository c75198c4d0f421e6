package io.jrdma.nio;

import io.jrdma.bindings.rdmacm.rdma_addr;
import io.jrdma.bindings.rdmacm.rdma_cm_id;
import io.jrdma.bindings.rdmacm.rdma_cma_h;
import io.jrdma.bindings.rdmacm.rdma_route;
import io.jrdma.ibverbs.internal.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Whether an RDMA device owns a local address, or routes to a remote one: asked of the connection manager with a
 * throwaway synchronous id, before a rule's rsocket is made, so that a rule that cannot work fails with a clear
 * message (or falls back to TCP) instead of an rsocket error later.
 */
final class RdmaDevices {
    /** How long {@link #routeProblem} waits for the address resolution. */
    static final int RESOLVE_TIMEOUT_MILLIS = 2000;
    private static final MethodHandle CREATE_ID = Errno.capturing(rdma_cma_h.rdma_create_id$address(),
            rdma_cma_h.rdma_create_id$descriptor());
    private static final MethodHandle BIND_ADDR = Errno.capturing(rdma_cma_h.rdma_bind_addr$address(),
            rdma_cma_h.rdma_bind_addr$descriptor());
    private static final MethodHandle RESOLVE_ADDR = Errno.capturing(rdma_cma_h.rdma_resolve_addr$address(),
            rdma_cma_h.rdma_resolve_addr$descriptor());
    private static final MethodHandle RESOLVE_ROUTE = Errno.capturing(rdma_cma_h.rdma_resolve_route$address(),
            rdma_cma_h.rdma_resolve_route$descriptor());

    private RdmaDevices() {
    }

    /** What the connection manager said: why no device serves the address, or null and the local address. */
    private record Answer(String problem, InetAddress local) {
    }

    /** Why no RDMA device can bind {@code local}, or null if one can. */
    static String bindProblem(InetAddress local) {
        return ask(local, false).problem();
    }

    /**
     * Why no RDMA device routes to {@code remote}, or null if one does. Blocks for the address and route resolution
     * (at most {@link #RESOLVE_TIMEOUT_MILLIS} each). Both, because an address can resolve where no route does: the
     * loopback address binds to a device, and then has no route on Soft-RoCE.
     */
    static String routeProblem(InetAddress remote) {
        return ask(remote, true).problem();
    }

    /**
     * The address of this host's RDMA device that a connection to {@code remote} leaves from, as the connection
     * manager resolves it (which sends nothing to {@code remote} but an address resolution, as a connect does).
     *
     * @throws IOException if no RDMA device routes to {@code remote}
     */
    static InetAddress source(InetAddress remote) throws IOException {
        Answer answer = ask(remote, true);
        if (answer.problem() != null) {
            throw new IOException(answer.problem());
        }
        return answer.local();
    }

    @SuppressWarnings("restricted")   // the id is librdmacm's struct rdma_cm_id, which rdma_create_id just made
    private static Answer ask(InetAddress address, boolean resolve) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Errno.allocateState(arena);
            MemorySegment idp = arena.allocate(ValueLayout.ADDRESS);
            // No event channel: the id is synchronous, and rdma_resolve_addr returns when it is done.
            int rc = (int) CREATE_ID.invokeExact(state, MemorySegment.NULL, idp, MemorySegment.NULL,
                    rdma_cma_h.RDMA_PS_TCP());
            if (rc != 0) {
                return new Answer("rdma_create_id failed: " + Errno.name(Errno.read(state)) + " (no RDMA device?)",
                        null);
            }
            MemorySegment id = idp.get(ValueLayout.ADDRESS, 0);
            try {
                MemorySegment sa = SocketAddresses.encode(new InetSocketAddress(address, 0), arena);
                String call = resolve ? "rdma_resolve_addr" : "rdma_bind_addr";
                rc = resolve ? (int) RESOLVE_ADDR.invokeExact(state, id, MemorySegment.NULL, sa, RESOLVE_TIMEOUT_MILLIS)
                        : (int) BIND_ADDR.invokeExact(state, id, sa);
                if (rc == 0 && resolve) {
                    call = "rdma_resolve_route";
                    rc = (int) RESOLVE_ROUTE.invokeExact(state, id, RESOLVE_TIMEOUT_MILLIS);
                }
                if (rc != 0) {
                    int errno = Errno.read(state);
                    return new Answer((resolve ? "no RDMA device routes to " : "no RDMA device owns ")
                            + address.getHostAddress() + " (" + call + ": " + Errno.name(errno) + ", "
                            + Errno.describe(errno) + ")", null);
                }
                MemorySegment route = rdma_cm_id.route(id.reinterpret(rdma_cm_id.layout().byteSize()));
                return new Answer(null, SocketAddresses.decode(rdma_addr.src_storage(rdma_route.addr(route)))
                        .getAddress());
            } finally {
                rdma_cma_h.rdma_destroy_id(id);
            }
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
