package io.jrdma.nio;

import io.jrdma.bindings.rsocket.rsocket_h;

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
            return rsocket_h.SOL_RDMA();
        }
        return option == StandardSocketOptions.TCP_NODELAY ? rsocket_h.IPPROTO_TCP() : rsocket_h.SOL_SOCKET();
    }

    static int name(SocketOption<?> option) {
        if (option == StandardSocketOptions.TCP_NODELAY) {
            return rsocket_h.TCP_NODELAY();
        } else if (option == StandardSocketOptions.SO_RCVBUF) {
            return rsocket_h.SO_RCVBUF();
        } else if (option == StandardSocketOptions.SO_SNDBUF) {
            return rsocket_h.SO_SNDBUF();
        } else if (option == StandardSocketOptions.SO_KEEPALIVE) {
            return rsocket_h.SO_KEEPALIVE();
        } else if (option == RdmaSocketOptions.IOMAP_SIZE) {
            return rsocket_h.RDMA_IOMAPSIZE();
        }
        return rsocket_h.SO_REUSEADDR();
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
