package io.jrdma.nio;

import io.jrdma.ibverbs.internal.Fd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/** A server socket channel over an rsocket or a TCP socket, whichever the rules pick for the address it binds. */
final class ServerSocketChannelImpl extends ServerSocketChannel implements Pollable {
    /** The backlog of a bind that asks for none, as the JDK's. */
    private static final int DEFAULT_BACKLOG = 50;
    private final RdmaSelectorProvider provider;
    private final Router router;
    private final SocketSlot slot;
    private final ReentrantLock acceptLock = new ReentrantLock();
    private final Object stateLock = new Object();
    private volatile InetSocketAddress local;
    private ServerSocketAdapter adapter;

    /** A new, unbound channel whose socket starts as TCP of {@code family}, with SO_REUSEADDR on as the JDK's. */
    ServerSocketChannelImpl(RdmaSelectorProvider provider, Router router, int family) throws IOException {
        super(provider);
        this.provider = provider;
        this.router = router;
        slot = new SocketSlot(Options.LISTENER, family, Map.of(StandardSocketOptions.SO_REUSEADDR, true));
    }

    @Override
    public NativeSocket nativeSocket() {
        return slot.socket();
    }

    @Override
    public ServerSocketChannel bind(SocketAddress address, int backlog) throws IOException {
        synchronized (stateLock) {
            ensureOpen();
            if (local != null) {
                throw new AlreadyBoundException();
            }
            InetSocketAddress isa = address == null ? new InetSocketAddress(0) : SocketAddresses.check(address);
            Transport transport = router.forBind(isa);
            NativeSocket s = slot.prepare(transport, SocketAddresses.family(isa.getAddress()),
                    router.presets(transport));
            InetSocketAddress listening = s.use((t, fd) -> {
                t.bind(fd, isa);
                InetSocketAddress bound = t.localAddress(fd);
                if (t.isRdma()) {
                    // Accepted rsockets are served by librdmacm's connection service too.
                    router.beforeRdmaListen(bound.getAddress());
                }
                t.listen(fd, backlog < 1 ? DEFAULT_BACKLOG : backlog);
                return bound;
            });
            slot.settle();
            local = listening;
        }
        return this;
    }

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        slot.set(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return slot.get(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return Options.LISTENER;
    }

    /** The {@link ServerSocket} view of this channel (see {@link ServerSocketAdapter}), made at the first call. */
    @Override
    public ServerSocket socket() {
        synchronized (stateLock) {
            if (adapter == null) {
                try {
                    adapter = new ServerSocketAdapter(this);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return adapter;
        }
    }

    /** The local address, or null before a bind; also after close. */
    InetSocketAddress local() {
        return local;
    }

    @Override
    public SocketChannel accept() throws IOException {
        acceptLock.lock();
        try {
            ensureOpen();
            if (local == null) {
                throw new NotYetBoundException();
            }
            NativeSocket s = slot.socket();
            s.acquireOpen();
            int fd = -1;
            boolean blocking = isBlocking();
            try {
                if (blocking) {
                    begin();
                }
                for (int idle = 0; isOpen(); idle++) {
                    fd = s.transport().accept(s.fd());
                    if (fd >= 0 || !blocking) {
                        break;
                    }
                    Fd.awaitSlice(s.transport()::look, s.fd(), Libc.POLLIN, idle);
                }
            } finally {
                s.release();
                if (blocking) {
                    end(fd >= 0);
                }
            }
            if (fd < 0) {
                return null;
            }
            NativeSocket accepted = new NativeSocket(s.transport(), fd, s.family());
            try {
                return new SocketChannelImpl(provider, router, accepted);
            } catch (IOException e) {
                accepted.close();
                throw e;
            }
        } finally {
            acceptLock.unlock();
        }
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return local;
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        slot.close();
    }

    @Override
    protected void implConfigureBlocking(boolean block) {
        // The native socket is non-blocking in both modes: blocking is the channel's waiting (Fd.awaitSlice).
    }

    @Override
    public int pollEvents(int ops) {
        return (ops & SelectionKey.OP_ACCEPT) != 0 ? Libc.POLLIN : 0;
    }

    @Override
    public int readyOps(int revents, int interestOps) {
        return revents != 0 ? SelectionKey.OP_ACCEPT & interestOps : 0;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + (isOpen() ? slot.socket() : "closed") + " local=" + local + "]";
    }
}
