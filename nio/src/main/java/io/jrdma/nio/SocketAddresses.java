package io.jrdma.nio;

import io.jrdma.bindings.rdmacm.sockaddr_in;
import io.jrdma.bindings.rdmacm.sockaddr_in6;
import io.jrdma.bindings.rdmacm.sockaddr_storage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.Objects;

/** Socket addresses between {@link InetSocketAddress} and C's {@code sockaddr_in} / {@code sockaddr_in6}. */
final class SocketAddresses {
    /** Ports and IPv4 addresses are in network byte order. */
    private static final ValueLayout.OfShort PORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private SocketAddresses() {
    }

    /** {@code address} as an {@link InetSocketAddress}, or the exception the channel contract names for it. */
    static InetSocketAddress check(SocketAddress address) {
        Objects.requireNonNull(address, "address");
        if (!(address instanceof InetSocketAddress inet)) {
            throw new UnsupportedAddressTypeException();
        }
        if (inet.isUnresolved()) {
            throw new UnresolvedAddressException();
        }
        return inet;
    }

    /** The address family ({@code AF_INET} or {@code AF_INET6}) of {@code address}. */
    static int family(InetAddress address) {
        return address instanceof Inet4Address ? Libc.AF_INET : Libc.AF_INET6;
    }

    /** {@code address} as a C socket address in {@code arena}. */
    static MemorySegment encode(InetSocketAddress address, Arena arena) {
        InetAddress ip = address.getAddress();
        byte[] bytes = ip.getAddress();
        if (ip instanceof Inet4Address) {
            MemorySegment sa = sockaddr_in.allocate(arena);
            sockaddr_in.sin_family(sa, (short) Libc.AF_INET);
            sa.set(PORT, sockaddr_in.sin_port$offset(), (short) address.getPort());
            MemorySegment.copy(bytes, 0, sa, ValueLayout.JAVA_BYTE, sockaddr_in.sin_addr$offset(), 4);
            return sa;
        }
        MemorySegment sa = sockaddr_in6.allocate(arena);
        sockaddr_in6.sin6_family(sa, (short) Libc.AF_INET6);
        sa.set(PORT, sockaddr_in6.sin6_port$offset(), (short) address.getPort());
        MemorySegment.copy(bytes, 0, sa, ValueLayout.JAVA_BYTE, sockaddr_in6.sin6_addr$offset(), 16);
        sockaddr_in6.sin6_scope_id(sa, ((Inet6Address) ip).getScopeId());
        return sa;
    }

    /** Room for any socket address, as {@code getsockname}, {@code getpeername} and {@code accept} fill in. */
    static MemorySegment allocate(Arena arena) {
        return sockaddr_storage.allocate(arena);
    }

    /** The socket address C wrote into {@code sa} (from {@link #allocate}). */
    static InetSocketAddress decode(MemorySegment sa) throws UnknownHostException {
        int family = sockaddr_in.sin_family(sa);
        if (family == Libc.AF_INET) {
            byte[] ip = sa.asSlice(sockaddr_in.sin_addr$offset(), 4).toArray(ValueLayout.JAVA_BYTE);
            return new InetSocketAddress(InetAddress.getByAddress(ip),
                    Short.toUnsignedInt(sa.get(PORT, sockaddr_in.sin_port$offset())));
        }
        if (family == Libc.AF_INET6) {
            byte[] ip = sa.asSlice(sockaddr_in6.sin6_addr$offset(), 16).toArray(ValueLayout.JAVA_BYTE);
            int scope = sockaddr_in6.sin6_scope_id(sa);
            InetAddress address = scope == 0 ? InetAddress.getByAddress(ip) : Inet6Address.getByAddress(null, ip, scope);
            return new InetSocketAddress(address, Short.toUnsignedInt(sa.get(PORT, sockaddr_in6.sin6_port$offset())));
        }
        throw new UnknownHostException("socket address of family " + family);
    }
}
