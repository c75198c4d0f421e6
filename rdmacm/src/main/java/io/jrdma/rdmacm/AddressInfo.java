package io.jrdma.rdmacm;

import io.jrdma.bindings.rdmacm.rdma_addrinfo;
import io.jrdma.bindings.rdmacm.rdma_cma_h;
import io.jrdma.bindings.rdmacm.sockaddr_in;
import io.jrdma.bindings.rdmacm.sockaddr_in6;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.internal.NativeEnums;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * One answer of {@code rdma_getaddrinfo}: how to reach (or offer) a service over RDMA, to make an id with
 * {@link CmId#createEndpoint}.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=address-info}
 *
 * @param passive     whether it is for the listening side ({@code RAI_PASSIVE})
 * @param qpType      the queue pair type the service uses
 * @param portSpace   its port space
 * @param source      the local address, or null
 * @param destination the remote address, or null (passive)
 */
@SuppressWarnings("restricted")
public record AddressInfo(boolean passive, QpType qpType, PortSpace portSpace, InetSocketAddress source,
                          InetSocketAddress destination) {
    private static final MethodHandle GETADDRINFO = Cm.capturing(rdma_cma_h.rdma_getaddrinfo$address(),
            rdma_cma_h.rdma_getaddrinfo$descriptor());

    /**
     * Looks up {@code node} (a host name or address; null with {@code passive} for any local address) and
     * {@code service} (a port number) for {@code portSpace} ({@code rdma_getaddrinfo}).
     *
     * @param node      a host name or numeric address; {@code null} only with {@code passive}
     * @param service   a port number as a string, or {@code null}
     * @param passive   whether the answers are for listening
     * @param portSpace {@link PortSpace#TCP} (RC) or {@link PortSpace#UDP} (UD)
     * @return the answers, in the order librdmacm gave them; never empty
     * @throws RdmaException            if {@code rdma_getaddrinfo} fails, e.g. when no RDMA device serves the address
     * @throws IllegalArgumentException if {@code node} is null for an active lookup
     */
    public static List<AddressInfo> lookup(String node, String service, boolean passive, PortSpace portSpace)
            throws RdmaException {
        if (node == null && !passive) {
            throw new IllegalArgumentException("an active lookup needs the node to reach");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment hints = rdma_addrinfo.allocate(arena);
            rdma_addrinfo.ai_flags(hints, passive ? rdma_cma_h.RAI_PASSIVE() : 0);
            rdma_addrinfo.ai_port_space(hints, portSpace.value());
            rdma_addrinfo.ai_qp_type(hints, (portSpace == PortSpace.UDP ? QpType.UD : QpType.RC).value());
            MemorySegment slot = arena.allocate(ValueLayout.ADDRESS);
            Cm.check("rdma_getaddrinfo", GETADDRINFO, "looking up " + node + ":" + service,
                    node == null ? MemorySegment.NULL : arena.allocateFrom(node),
                    service == null ? MemorySegment.NULL : arena.allocateFrom(service), hints, slot);
            MemorySegment head = slot.get(ValueLayout.ADDRESS, 0);
            try {
                List<AddressInfo> all = new ArrayList<>();
                for (MemorySegment ai = head; !ai.equals(MemorySegment.NULL); ) {
                    MemorySegment a = ai.reinterpret(rdma_addrinfo.sizeof());
                    all.add(new AddressInfo((rdma_addrinfo.ai_flags(a) & rdma_cma_h.RAI_PASSIVE()) != 0,
                            NativeEnums.of(QpType.values(), QpType::value, rdma_addrinfo.ai_qp_type(a), QpType.RC),
                            PortSpace.of(rdma_addrinfo.ai_port_space(a)), address(rdma_addrinfo.ai_src_addr(a)),
                            address(rdma_addrinfo.ai_dst_addr(a))));
                    ai = rdma_addrinfo.ai_next(a);
                }
                return all;
            } finally {
                rdma_cma_h.rdma_freeaddrinfo(head);
            }
        }
    }

    private static InetSocketAddress address(MemorySegment sa) {
        return sa.equals(MemorySegment.NULL) ? null : Sockaddrs.read(sa);
    }

    /** A native {@code struct rdma_addrinfo} with these fields, for {@code rdma_create_ep}. */
    MemorySegment toNative(Arena arena) {
        MemorySegment a = rdma_addrinfo.allocate(arena);
        rdma_addrinfo.ai_flags(a, passive ? rdma_cma_h.RAI_PASSIVE() : 0);
        InetSocketAddress any = source != null ? source : destination;
        rdma_addrinfo.ai_family(a, any == null || any.getAddress().getAddress().length == 4
                ? Sockaddrs.AF_INET : Sockaddrs.AF_INET6);
        rdma_addrinfo.ai_qp_type(a, qpType.value());
        rdma_addrinfo.ai_port_space(a, portSpace.value());
        if (source != null) {
            rdma_addrinfo.ai_src_addr(a, Sockaddrs.of(source, arena));
            rdma_addrinfo.ai_src_len(a, length(source));
        }
        if (destination != null) {
            rdma_addrinfo.ai_dst_addr(a, Sockaddrs.of(destination, arena));
            rdma_addrinfo.ai_dst_len(a, length(destination));
        }
        return a;
    }

    private static int length(InetSocketAddress address) {
        return (int) (address.getAddress().getAddress().length == 4 ? sockaddr_in.sizeof() : sockaddr_in6.sizeof());
    }
}
