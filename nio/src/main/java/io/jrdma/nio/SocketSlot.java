package io.jrdma.nio;

import java.io.IOException;
import java.net.SocketOption;
import java.nio.channels.ClosedChannelException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The native socket behind a channel. Which kind a channel needs is only known when it binds or connects (the
 * rules match the address), so a channel starts with a TCP socket (options can be set and read at once) which its
 * first bind or connect replaces, if it needs another kind or address family, by a new socket with the same options
 * set again. After a bind or connect succeeded the socket stays.
 */
final class SocketSlot {
    private final Set<SocketOption<?>> supported;
    private final Map<SocketOption<?>, Object> options = new LinkedHashMap<>();
    private volatile NativeSocket socket;
    private boolean settled;
    private boolean closed;

    /** A fresh TCP socket of {@code family}, with {@code defaults} set. */
    SocketSlot(Set<SocketOption<?>> supported, int family, Map<SocketOption<?>, Object> defaults) throws IOException {
        this.supported = supported;
        socket = new NativeSocket(Transport.TCP, Transport.TCP.socket(family), family);
        try {
            for (Map.Entry<SocketOption<?>, Object> e : defaults.entrySet()) {
                set(e.getKey(), e.getValue());
            }
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** A socket that is connected already, as {@code accept} returns. */
    SocketSlot(Set<SocketOption<?>> supported, NativeSocket accepted) {
        this.supported = supported;
        socket = accepted;
        settled = true;
    }

    NativeSocket socket() {
        return socket;
    }

    /**
     * The socket, replaced first by one of {@code transport} and {@code family} unless it is that already or settled;
     * a replacement gets {@code presets} (see {@link Router#presets}), then the options set so far.
     */
    synchronized NativeSocket prepare(Transport transport, int family, Map<SocketOption<?>, Object> presets)
            throws IOException {
        // A replacement made after close would be open for ever: nothing closes the slot again.
        ensureOpen();
        NativeSocket current = socket;
        if (settled || (current.transport() == transport && current.family() == family)) {
            return current;
        }
        NativeSocket replacement = new NativeSocket(transport, transport.socket(family), family);
        try {
            Map<SocketOption<?>, Object> all = new LinkedHashMap<>(presets);
            all.putAll(options);
            for (Map.Entry<SocketOption<?>, Object> e : all.entrySet()) {
                apply(replacement, e.getKey(), e.getValue());
            }
        } catch (IOException e) {
            replacement.close();
            throw e;
        }
        socket = replacement;
        current.close();
        return replacement;
    }

    /** Keeps the socket from now on: it is bound or connected. */
    synchronized void settle() {
        settled = true;
    }

    synchronized void set(SocketOption<?> option, Object value) throws IOException {
        Options.check(supported, option, value);
        ensureOpen();
        apply(socket, option, value);
        options.put(option, value);
    }

    synchronized <T> T get(SocketOption<T> option) throws IOException {
        Options.check(supported, option, Boolean.FALSE);
        ensureOpen();
        NativeSocket s = socket;
        if (Options.rdmaOnly(option) && !s.transport().isRdma()) {
            return option.type().cast(options.getOrDefault(option, 0));
        }
        return option.type().cast(Options.decode(option,
                s.transport().getInt(s.fd(), Options.level(option), Options.name(option))));
    }

    /** Only under the slot's lock, which keeps {@link #close} out: the descriptor stays open for the call. */
    private static void apply(NativeSocket s, SocketOption<?> option, Object value) throws IOException {
        if (Options.rdmaOnly(option) && !s.transport().isRdma()) {
            return;   // kept in options: it is set if the first bind or connect makes the socket an rsocket
        }
        s.transport().setInt(s.fd(), Options.level(option), Options.name(option), Options.encode(value));
    }

    private void ensureOpen() throws ClosedChannelException {
        if (closed) {
            throw new ClosedChannelException();
        }
    }

    synchronized void close() throws IOException {
        closed = true;
        socket.close();
    }
}
