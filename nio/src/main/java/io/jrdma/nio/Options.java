package io.jrdma.nio;

import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.Objects;
import java.util.Set;

/** The socket options the channels support, which rsockets and TCP sockets both take, and their C names. */
final class Options {
    /** What a socket channel supports. */
    static final Set<SocketOption<?>> STREAM = Set.of(StandardSocketOptions.TCP_NODELAY,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.SO_KEEPALIVE,
            StandardSocketOptions.SO_REUSEADDR, RdmaSocketOptions.IOMAP_SIZE);
    /** What a server socket channel supports; the connections it accepts start with its rsockets options. */
    static final Set<SocketOption<?>> LISTENER = Set.of(StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_REUSEADDR, RdmaSocketOptions.IOMAP_SIZE);

    /** rsocket.h's option level and name of {@link RdmaSocketOptions#IOMAP_SIZE} (its class would load librdmacm). */
    private static final int SOL_RDMA = 0x10000;
    private static final int RDMA_IOMAPSIZE = 3;

    private Options() {
    }

    /** Checks {@code option} is in {@code supported} and {@code value} is a value it takes, before any native call. */
    static void check(Set<SocketOption<?>> supported, SocketOption<?> option, Object value) {
        Objects.requireNonNull(option, "option");
        if (!supported.contains(option)) {
            throw new UnsupportedOperationException("'" + option + "' not supported");
        }
        if (value == null) {
            throw new IllegalArgumentException("'" + option + "' cannot be null");
        }
        if (value instanceof Integer size && size < 0) {
            throw new IllegalArgumentException("'" + option + "' cannot be negative: " + size);
        }
        if (option == RdmaSocketOptions.IOMAP_SIZE && value instanceof Integer size
                && size > RdmaSocketOptions.MAX_IOMAP_SIZE) {
            throw new IllegalArgumentException("'" + option + "' is at most " + RdmaSocketOptions.MAX_IOMAP_SIZE
                    + ": " + value);
        }
    }

    /** Whether only an rsocket has {@code option}. */
    static boolean rdmaOnly(SocketOption<?> option) {
        return option == RdmaSocketOptions.IOMAP_SIZE;
    }

    static int level(SocketOption<?> option) {
        if (rdmaOnly(option)) {
            return SOL_RDMA;
        }
        return option == StandardSocketOptions.TCP_NODELAY ? Libc.IPPROTO_TCP : Libc.SOL_SOCKET;
    }

    static int name(SocketOption<?> option) {
        if (option == StandardSocketOptions.TCP_NODELAY) {
            return Libc.TCP_NODELAY;
        } else if (option == StandardSocketOptions.SO_RCVBUF) {
            return Libc.SO_RCVBUF;
        } else if (option == StandardSocketOptions.SO_SNDBUF) {
            return Libc.SO_SNDBUF;
        } else if (option == StandardSocketOptions.SO_KEEPALIVE) {
            return Libc.SO_KEEPALIVE;
        } else if (option == RdmaSocketOptions.IOMAP_SIZE) {
            return RDMA_IOMAPSIZE;
        }
        return Libc.SO_REUSEADDR;
    }

    /** The C int of a value. */
    static int encode(Object value) {
        return value instanceof Boolean on ? (on ? 1 : 0) : (Integer) value;
    }

    /** The Java value of a C int, for {@code option}. */
    static Object decode(SocketOption<?> option, int raw) {
        return option.type() == Boolean.class ? raw != 0 : raw;
    }
}
