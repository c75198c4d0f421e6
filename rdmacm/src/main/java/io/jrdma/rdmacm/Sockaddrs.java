package io.jrdma.rdmacm;

import io.jrdma.bindings.rdmacm.sockaddr_storage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/** {@code struct sockaddr_in} / {@code sockaddr_in6} to and from {@link InetSocketAddress}. */
@SuppressWarnings("restricted")
final class Sockaddrs {
    static final short AF_INET = 2;
    static final short AF_INET6 = 10;
    private static final ValueLayout.OfShort PORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Sockaddrs() {
    }

    /** A native socket address for {@code address}, allocated in {@code arena}; NULL for null. */
    static MemorySegment of(InetSocketAddress address, Arena arena) {
        if (address == null) {
            return MemorySegment.NULL;
        }
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address " + address + ": resolve the host name first");
        }
        MemorySegment sa = sockaddr_storage.allocate(arena);
        byte[] ip = address.getAddress().getAddress();
        sa.set(PORT, 2, (short) address.getPort());
        if (address.getAddress() instanceof Inet4Address) {
            sa.set(ValueLayout.JAVA_SHORT, 0, AF_INET);
            MemorySegment.copy(ip, 0, sa, ValueLayout.JAVA_BYTE, 4, 4);
        } else {
            sa.set(ValueLayout.JAVA_SHORT, 0, AF_INET6);
            MemorySegment.copy(ip, 0, sa, ValueLayout.JAVA_BYTE, 8, 16);
            sa.set(ValueLayout.JAVA_INT, 24, ((Inet6Address) address.getAddress()).getScopeId());
        }
        return sa;
    }

    /** The address in native {@code sa}, or null if it is not an IPv4 or IPv6 address (e.g. unset, or AF_IB). */
    static InetSocketAddress read(MemorySegment sa) {
        MemorySegment s = sa.reinterpret(sockaddr_storage.sizeof());
        short family = s.get(ValueLayout.JAVA_SHORT, 0);
        int port = Short.toUnsignedInt(s.get(PORT, 2));
        try {
            if (family == AF_INET) {
                return new InetSocketAddress(InetAddress.getByAddress(s.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE)),
                        port);
            }
            if (family == AF_INET6) {
                return new InetSocketAddress(Inet6Address.getByAddress(null,
                        s.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE), s.get(ValueLayout.JAVA_INT, 24)), port);
            }
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
        return null;
    }
}
