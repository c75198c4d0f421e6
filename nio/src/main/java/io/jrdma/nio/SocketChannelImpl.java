package io.jrdma.nio;

import io.jrdma.ibverbs.internal.Fd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A socket channel over an rsocket or a TCP socket, whichever the rules pick at its first bind or connect. The
 * native socket is always non-blocking; in blocking mode the channel waits with {@link Fd#awaitSlice}.
 */
final class SocketChannelImpl extends SocketChannel implements Pollable {
    private final Router router;
    /** Has its own lock; a close takes only that one, so it never waits for a thread in this channel. */
    private final SocketSlot slot;
    /** Held by the reading thread, and by a connecting or binding one once its transport is known. */
    private final ReentrantLock readLock = new ReentrantLock();
    /** Held by the writing thread, and by a connecting or binding one once its transport is known. */
    private final ReentrantLock writeLock = new ReentrantLock();
    /**
     * Held by a thread that changes the fields below; taken after the read and write locks, and never held over a
     * wait: not over a device check (seconds when a route does not resolve), nor over a blocking connect.
     */
    private final Object stateLock = new Object();
    /** Used under readLock. */
    private final IoVectors reads = new IoVectors();
    /** Used under writeLock. */
    private final IoVectors writes = new IoVectors();
    /** A single-buffer read; used under readLock. */
    private final Transfer readOne = reads::read;
    /** A single-buffer write; used under writeLock. */
    private final Transfer writeOne = writes::write;
    /** Written under stateLock; read without it. */
    private volatile State state;
    /** Written under stateLock; read without it. */
    private volatile boolean inputShutdown;
    /** Written under stateLock; read without it. */
    private volatile boolean outputShutdown;
    /** Under stateLock. */
    private InetSocketAddress local;
    /** Under stateLock. */
    private InetSocketAddress remote;
    /** Under stateLock. */
    private SocketAdapter adapter;

    private enum State { UNCONNECTED, PENDING, CONNECTED }

    /** A new, unconnected channel whose socket starts as TCP of {@code family}. */
    SocketChannelImpl(RdmaSelectorProvider provider, Router router, int family) throws IOException {
        super(provider);
        this.router = router;
        slot = new SocketSlot(Options.STREAM, family, Map.of());
        state = State.UNCONNECTED;
    }

    /** A channel for a connection a server socket channel accepted. */
    SocketChannelImpl(RdmaSelectorProvider provider, Router router, NativeSocket accepted) throws IOException {
        super(provider);
        this.router = router;
        slot = new SocketSlot(Options.STREAM, accepted);
        local = accepted.transport().localAddress(accepted.fd());
        remote = accepted.transport().remoteAddress(accepted.fd());
        state = State.CONNECTED;
    }

    @Override
    public NativeSocket nativeSocket() {
        return slot.socket();
    }

    /** Whether this channel runs over RDMA (an rsocket) rather than TCP. */
    boolean isRdma() {
        return slot.socket().transport().isRdma();
    }

    @Override
    public SocketChannel bind(SocketAddress address) throws IOException {
        readLock.lock();
        writeLock.lock();
        try {
            synchronized (stateLock) {
                ensureOpen();
                if (state == State.PENDING) {
                    throw new ConnectionPendingException();
                }
                if (local != null) {
                    throw new AlreadyBoundException();
                }
                InetSocketAddress isa = address == null ? new InetSocketAddress(0) : SocketAddresses.check(address);
                Transport transport = router.forBind(isa);
                NativeSocket s = slot.prepare(transport, SocketAddresses.family(isa.getAddress()),
                        router.presets(transport));
                InetSocketAddress bound = s.use((t, fd) -> {
                    t.bind(fd, isa);
                    return t.localAddress(fd);
                });
                slot.settle();
                local = bound;
            }
            return this;
        } finally {
            writeLock.unlock();
            readLock.unlock();
        }
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        slot.set(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return slot.get(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return Options.STREAM;
    }

    @Override
    public SocketChannel shutdownInput() throws IOException {
        synchronized (stateLock) {
            inputShutdown = shutdown(inputShutdown, Libc.SHUT_RD);
        }
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        synchronized (stateLock) {
            outputShutdown = shutdown(outputShutdown, Libc.SHUT_WR);
        }
        return this;
    }

    /** Shuts one direction down unless {@code done} says it is already; true. */
    private boolean shutdown(boolean done, int how) throws IOException {
        ensureOpen();
        ensureConnected();
        if (!done) {
            slot.socket().use((t, fd) -> {
                t.shutdown(fd, how);
                return null;
            });
        }
        return true;
    }

    /** The {@link Socket} view of this channel (see {@link SocketAdapter}), made at the first call. */
    @Override
    public Socket socket() {
        synchronized (stateLock) {
            if (adapter == null) {
                try {
                    adapter = new SocketAdapter(this);
                } catch (SocketException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return adapter;
        }
    }

    /** The local address, or null before a bind or connect; also after close. */
    InetSocketAddress local() {
        synchronized (stateLock) {
            return local;
        }
    }

    /** The remote address, or null before a connect; also after close. */
    InetSocketAddress remote() {
        synchronized (stateLock) {
            return remote;
        }
    }

    boolean isInputShutdown() {
        return inputShutdown;
    }

    boolean isOutputShutdown() {
        return outputShutdown;
    }

    @Override
    public boolean isConnected() {
        return state == State.CONNECTED;
    }

    @Override
    public boolean isConnectionPending() {
        return state == State.PENDING;
    }

    @Override
    public boolean connect(SocketAddress address) throws IOException {
        InetSocketAddress isa = SocketAddresses.check(address);
        while (true) {
            // The transport is decided, and checked with the connection manager, before any lock is taken: a close,
            // an address query or a selector's work on this channel does not wait for that.
            Transport transport = transportToConnect(isa);
            readLock.lock();
            writeLock.lock();
            try {
                NativeSocket s;
                synchronized (stateLock) {
                    ensureUnconnected();
                    if (local != null && slot.socket().transport() != transport) {
                        continue;   // bound meanwhile, to another kind: the bind decides, outside the locks again
                    }
                    try {
                        s = slot.prepare(transport, local == null ? SocketAddresses.family(isa.getAddress())
                                : slot.socket().family(), router.presets(transport));
                        s.acquireOpen();
                        try {
                            boolean connected = s.transport().connect(s.fd(), isa);
                            slot.settle();
                            remote = isa;
                            state = State.PENDING;
                            if (connected) {
                                connected(s);
                                return true;
                            }
                        } finally {
                            s.release();
                        }
                    } catch (IOException e) {
                        close();
                        throw e;
                    }
                }
                return isBlocking() && awaitConnection(s);
            } finally {
                writeLock.unlock();
                readLock.unlock();
            }
        }
    }

    /**
     * The transport a connect to {@code isa} takes, as the rules and device checks decide (or the bound socket's),
     * and the connection service room made for it: waits, but holds no lock of this channel. A refusal closes the
     * channel, as a failed connect does; a close meanwhile ends it with {@link AsynchronousCloseException}.
     */
    private Transport transportToConnect(InetSocketAddress isa) throws IOException {
        Transport bound;
        synchronized (stateLock) {
            ensureUnconnected();
            bound = local == null ? null : slot.socket().transport();
        }
        Transport transport = null;
        IOException refused = null;
        try {
            transport = bound != null ? bound : router.forConnect(isa);
            if (transport.isRdma()) {
                router.beforeRdmaConnect(isa.getAddress());
            }
        } catch (IOException e) {
            refused = e;
        }
        if (!isOpen()) {
            // Closed by another thread while this one waited: that is the outcome, as for a blocking connect.
            AsynchronousCloseException closed = new AsynchronousCloseException();
            closed.initCause(refused);
            throw closed;
        }
        if (refused != null) {
            close();
            throw refused;
        }
        return transport;
    }

    /** Throws unless this channel is open and neither connected nor connecting. The caller holds stateLock. */
    private void ensureUnconnected() throws ClosedChannelException {
        ensureOpen();
        if (state == State.CONNECTED) {
            throw new AlreadyConnectedException();
        }
        if (state == State.PENDING) {
            throw new ConnectionPendingException();
        }
    }

    @Override
    public boolean finishConnect() throws IOException {
        readLock.lock();
        writeLock.lock();
        try {
            NativeSocket s;
            synchronized (stateLock) {
                ensureOpen();
                if (state == State.CONNECTED) {
                    return true;
                }
                if (state != State.PENDING) {
                    throw new NoConnectionPendingException();
                }
                s = slot.socket();
            }
            if (isBlocking()) {
                return awaitConnection(s);
            }
            s.acquireOpen();
            try {
                return checkConnected(s, Fd.ready(s.transport()::look, s.fd(), Libc.POLLOUT));
            } finally {
                s.release();
            }
        } finally {
            writeLock.unlock();
            readLock.unlock();
        }
    }

    /** Waits, in blocking mode, until the connection under way is made or fails. */
    private boolean awaitConnection(NativeSocket s) throws IOException {
        s.acquireOpen();
        boolean done = false;
        boolean failed = false;
        try {
            begin();
            for (int idle = 0; !done && isOpen(); idle++) {
                done = checkConnected(s, Fd.awaitSlice(s.transport()::look, s.fd(), Libc.POLLOUT, idle));
            }
        } catch (IOException e) {
            failed = true;
            throw e;
        } finally {
            s.release();
            // A failed connection closed the channel: its exception, not an asynchronous close, is the outcome.
            end(done || failed);
        }
        return done;
    }

    /**
     * After a poll for the connection under way: true if it is made, an exception (and closed) if it failed. The
     * caller holds a use of {@code s}.
     */
    private boolean checkConnected(NativeSocket s, int revents) throws IOException {
        if (revents == 0) {
            return false;
        }
        int error = s.transport().pendingError(s.fd());
        if (error != 0) {
            close();
            throw s.transport().connectFailure(error);
        }
        synchronized (stateLock) {
            connected(s);
        }
        return true;
    }

    /** The connection is made; the caller holds a use of {@code s}. */
    private void connected(NativeSocket s) throws IOException {
        local = s.transport().localAddress(s.fd());
        state = State.CONNECTED;
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        synchronized (stateLock) {
            ensureOpen();
            return remote;
        }
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        synchronized (stateLock) {
            ensureOpen();
            return local;
        }
    }

    /** {@link #read(ByteBuffer[], int, int)} of one buffer, the common case, with no array and no iovec. */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read-only buffer");
        }
        return (int) read(dst.hasRemaining(), readOne, dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        for (int i = offset; i < offset + length; i++) {
            if (dsts[i].isReadOnly()) {
                throw new IllegalArgumentException("read-only buffer " + i);
            }
        }
        return read(anyRemaining(dsts, offset, length), (s, none) -> reads.read(s, dsts, offset, length), null);
    }

    /**
     * A read of the input stream, {@code one} the buffer of a single-buffer read: the bytes read, -1 at its end, 0
     * when {@code any} says there is no room to read into.
     */
    private long read(boolean any, Transfer read, ByteBuffer one) throws IOException {
        readLock.lock();
        try {
            ensureOpen();
            ensureConnected();
            if (inputShutdown) {
                return -1;
            }
            if (!any) {
                return 0;
            }
            long n = transfer(Libc.POLLIN, read, one);
            return n == 0 ? -1 : n == Transport.UNAVAILABLE ? 0 : n;
        } finally {
            readLock.unlock();
        }
    }

    /** {@link #write(ByteBuffer[], int, int)} of one buffer, the common case, with no array and no iovec. */
    @Override
    public int write(ByteBuffer src) throws IOException {
        return (int) write(src.hasRemaining(), writeOne, src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        return write(anyRemaining(srcs, offset, length), (s, none) -> writes.write(s, srcs, offset, length), null);
    }

    /** {@link RdmaChannels#write}, whose arguments are checked. */
    long writeRemote(MemorySegment source, long offset) throws IOException {
        return write(source.byteSize() > 0,
                (s, none) -> IoMapCalls.write(s.fd(), source, offset, writes.errnoState()), null);
    }

    /**
     * A write of the output stream, {@code one} the buffer of a single-buffer write: the bytes written, 0 when
     * {@code any} says there are none to write.
     */
    private long write(boolean any, Transfer write, ByteBuffer one) throws IOException {
        writeLock.lock();
        try {
            ensureOpen();
            ensureConnected();
            if (outputShutdown) {
                throw new ClosedChannelException();
            }
            if (!any) {
                return 0;
            }
            long n = transfer(Libc.POLLOUT, write, one);
            return n == Transport.UNAVAILABLE ? 0 : n;
        } finally {
            writeLock.unlock();
        }
    }

    /** The socket of this connected channel, with a use taken that the caller gives back ({@link NativeSocket#release}). */
    NativeSocket acquireConnected() throws IOException {
        ensureOpen();
        ensureConnected();
        NativeSocket s = slot.socket();
        s.acquireOpen();
        return s;
    }

    /**
     * One transfer; in blocking mode it waits for {@code events} until some bytes moved. The bytes moved (0 at the
     * end of the stream), or {@link Transport#UNAVAILABLE} in non-blocking mode when none could.
     */
    private long transfer(short events, Transfer transfer, ByteBuffer one) throws IOException {
        NativeSocket s = slot.socket();
        s.acquireOpen();
        long n = Transport.UNAVAILABLE;
        boolean blocking = isBlocking();
        try {
            if (blocking) {
                begin();
            }
            for (int idle = 0; isOpen(); idle++) {
                n = transfer.run(s, one);
                if (n != Transport.UNAVAILABLE || !blocking) {
                    break;
                }
                Fd.awaitSlice(s.transport()::look, s.fd(), events, idle);
            }
        } finally {
            s.release();
            if (blocking) {
                // As the JDK's channels: only a transfer that moved bytes completed. A read that met the end of the
                // stream while another thread closed the channel is an asynchronous close, not an end of stream.
                end(n > 0);
            }
        }
        return n;
    }

    /**
     * A read or a write of the socket; {@code one} is the buffer of a single-buffer transfer (null for others), an
     * argument rather than captured so that {@link #readOne} and {@link #writeOne} are made once per channel, not
     * once per call.
     */
    private interface Transfer {
        long run(NativeSocket s, ByteBuffer one) throws IOException;
    }

    private static boolean anyRemaining(ByteBuffer[] buffers, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (buffers[i].hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    private void ensureConnected() {
        if (state != State.CONNECTED) {
            throw new NotYetConnectedException();
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
        int events = 0;
        if ((ops & SelectionKey.OP_READ) != 0) {
            events |= Libc.POLLIN;
        }
        if ((ops & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)) != 0) {
            events |= Libc.POLLOUT;
        }
        return events;
    }

    @Override
    public int readyOps(int revents, int interestOps) {
        boolean failed = (revents & (Libc.POLLERR | Libc.POLLHUP)) != 0;
        int ops = 0;
        if (failed || (revents & Libc.POLLIN) != 0) {
            ops |= SelectionKey.OP_READ;
        }
        if (failed || (revents & Libc.POLLOUT) != 0) {
            ops |= state == State.PENDING ? SelectionKey.OP_CONNECT : SelectionKey.OP_WRITE;
        }
        return ops & interestOps;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + (isOpen() ? slot.socket() : "closed") + " local=" + local
                + " remote=" + remote + "]";
    }
}
