package io.jrdma.nio;

import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.Fd;
import io.jrdma.ibverbs.internal.Segments;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.nio.ByteBuffer;

/**
 * The socket calls of one kind of stream socket: librdmacm's rsockets ({@code rsocket}, {@code rbind}, ...) or the
 * kernel's TCP sockets ({@code socket}, {@code bind}, ...), whose signatures are the same. Every socket is made
 * non-blocking: channels in blocking mode wait with {@link Fd#awaitSlice} instead, so that they can notice a close and
 * give up a virtual thread's carrier.
 */
final class Transport {
    /** The kernel's TCP sockets. */
    static final Transport TCP = new Transport("tcp", "", Libc.LOOKUP);

    /** What the reads and writes return when the socket has nothing to give or no room. */
    static final long UNAVAILABLE = -2;

    private final String name;
    private final String prefix;
    /** Whether the data path's calls are {@link DataCalls.Rsockets}' rather than {@link DataCalls.Kernel}'s. */
    private final boolean rdma;
    private final MethodHandle socket;
    private final MethodHandle bind;
    private final MethodHandle listen;
    private final MethodHandle accept;
    private final MethodHandle connect;
    private final MethodHandle shutdown;
    private final MethodHandle close;
    private final MethodHandle getsockname;
    private final MethodHandle getpeername;
    private final MethodHandle setsockopt;
    private final MethodHandle getsockopt;
    /** {@code fcntl(fd, F_GETFL)} and {@code fcntl(fd, F_SETFL, flags)}: variadic, so their own handles. */
    private final MethodHandle getFlags;
    private final MethodHandle setFlags;

    /** The calls named {@code prefix} and the kernel's name ({@code r} and {@code socket}: {@code rsocket}). */
    private Transport(String name, String prefix, SymbolLookup lookup) {
        this.name = name;
        this.prefix = prefix;
        rdma = !prefix.isEmpty();
        socket = call(lookup, "socket", Libc.INT_3INT);
        bind = call(lookup, "bind", Libc.ADDRESS_IN);
        listen = call(lookup, "listen", Libc.INT_INT_INT);
        accept = call(lookup, "accept", Libc.ADDRESS_OUT);
        connect = call(lookup, "connect", Libc.ADDRESS_IN);
        shutdown = call(lookup, "shutdown", Libc.INT_INT_INT);
        close = call(lookup, "close", Libc.INT_INT);
        getsockname = call(lookup, "getsockname", Libc.ADDRESS_OUT);
        getpeername = call(lookup, "getpeername", Libc.ADDRESS_OUT);
        setsockopt = call(lookup, "setsockopt", Libc.SETSOCKOPT);
        getsockopt = call(lookup, "getsockopt", Libc.GETSOCKOPT);
        MemorySegment fcntl = lookup.findOrThrow(prefix + "fcntl");
        getFlags = Libc.downcall(fcntl, Libc.INT_INT_INT, Linker.Option.firstVariadicArg(2));
        setFlags = Libc.downcall(fcntl, Libc.INT_3INT, Linker.Option.firstVariadicArg(2));
    }

    private MethodHandle call(SymbolLookup lookup, String call, FunctionDescriptor shape) {
        return DataCalls.handle(lookup, prefix + call, shape);
    }

    /**
     * librdmacm's rsockets: the stream runs over an RDMA reliable connection. Made at the first call, which loads
     * librdmacm.
     *
     * @throws UnsatisfiedLinkError if librdmacm cannot be loaded
     */
    static Transport rdma() {
        return Rdma.TRANSPORT;
    }

    private static final class Rdma {
        static final Transport TRANSPORT = new Transport("rdma", "r", RdmaLibrary.lookup());
    }

    /** Whether this is {@link #rdma()}. */
    boolean isRdma() {
        return rdma;
    }

    /** A new non-blocking stream socket of {@code family}. */
    int socket(int family) throws IOException {
        // rsocket() of rdma-core before 63 takes no SOCK_NONBLOCK or SOCK_CLOEXEC in the type: fcntl does it.
        int fd = call("socket", (state, arena) -> (int) socket.invokeExact(state, family, Libc.SOCK_STREAM, 0));
        try {
            nonBlocking(fd);
        } catch (IOException e) {
            close(fd);
            throw e;
        }
        return fd;
    }

    void bind(int fd, InetSocketAddress local) throws IOException {
        call("bind", (state, arena) -> {
            MemorySegment sa = SocketAddresses.encode(local, arena);
            return (int) bind.invokeExact(state, fd, sa, (int) sa.byteSize());
        });
    }

    void listen(int fd, int backlog) throws IOException {
        call("listen", (state, arena) -> (int) listen.invokeExact(state, fd, backlog));
    }

    /** A new non-blocking connected socket, or -1 when no connection waits. */
    int accept(int fd) throws IOException {
        int accepted = call("accept", (state, arena) -> {
            int rc = (int) accept.invokeExact(state, fd, MemorySegment.NULL, MemorySegment.NULL);
            return rc < 0 && Errno.read(state) == Libc.EAGAIN ? NONE : rc;
        });
        if (accepted >= 0) {
            // Neither a kernel socket nor (before rdma-core 63) an rsocket inherits O_NONBLOCK from its listener.
            nonBlocking(accepted);
            if (isRdma()) {
                cmChannelNonBlocking(accepted);
            }
        }
        return accepted;
    }

    /**
     * Makes the connection manager's event channel of an accepted rsocket non-blocking, as that of a connecting one
     * is already ({@code rfcntl} no longer reaches the channel once connected). librdmacm's connection service
     * thread reads the events of the rsockets it serves; a read on a blocking channel that has none never returns,
     * and with it every {@code rconnect}, {@code raccept} and {@code rclose} of the process (see
     * {@link ConnectService}). An rsocket's descriptor is its event channel's, so the kernel's {@code fcntl}
     * reaches it.
     */
    private static void cmChannelNonBlocking(int fd) throws IOException {
        TCP.nonBlocking(fd);
    }

    private void nonBlocking(int fd) throws IOException {
        try {
            int flags = (int) getFlags.invokeExact(fd, Libc.F_GETFL);
            if (flags < 0 || (int) setFlags.invokeExact(fd, Libc.F_SETFL, flags | Libc.O_NONBLOCK) < 0) {
                throw new IOException(prefix + "fcntl: cannot make socket " + fd + " non-blocking");
            }
        } catch (Throwable t) {
            throw rethrown(t);
        }
    }

    /** Starts connecting; true if connected already, false if the connection is under way. */
    boolean connect(int fd, InetSocketAddress remote) throws IOException {
        return call("connect", (state, arena) -> {
            MemorySegment sa = SocketAddresses.encode(remote, arena);
            int rc = (int) connect.invokeExact(state, fd, sa, (int) sa.byteSize());
            return rc < 0 && Errno.read(state) == Libc.EINPROGRESS ? NONE : rc;
        }) == 0;
    }

    /** The error a connection under way ended with ({@code SO_ERROR}), or 0. */
    int pendingError(int fd) throws IOException {
        return getInt(fd, Libc.SOL_SOCKET, Libc.SO_ERROR);
    }

    /** The exception for a connection that failed with {@code errno}, as {@link #pendingError} reports it. */
    IOException connectFailure(int errno) {
        return failure("connect", errno);
    }

    void shutdown(int fd, int how) throws IOException {
        call("shutdown", (state, arena) -> waitingForPeer("shutdown", fd,
                () -> (int) shutdown.invokeExact(state, fd, how)));
    }

    void close(int fd) throws IOException {
        call("close", (state, arena) -> waitingForPeer("close", fd, () -> (int) close.invokeExact(state, fd)));
    }

    /** Runs {@code wait}, a call that may wait for the peer; an rsocket's wait is bounded ({@link ShutdownWatchdog}). */
    private int waitingForPeer(String call, int fd, ShutdownWatchdog.Wait wait) throws Throwable {
        return rdma ? ShutdownWatchdog.run(call, fd, wait) : wait.run();
    }

    /** Reads into {@code count} iovecs; the bytes read (0 at end of stream), or {@link #UNAVAILABLE}. */
    long readv(int fd, MemorySegment iov, int count, MemorySegment state) throws IOException {
        try {
            return transferred("readv", rdma
                    ? (long) DataCalls.Rsockets.READV.invokeExact(state, fd, iov, count)
                    : (long) DataCalls.Kernel.READV.invokeExact(state, fd, iov, count), state);
        } catch (Throwable t) {
            throw rethrown(t);
        }
    }

    /** Writes from {@code count} iovecs; the bytes written, or {@link #UNAVAILABLE}. */
    long writev(int fd, MemorySegment iov, int count, MemorySegment state) throws IOException {
        try {
            return transferred("writev", rdma
                    ? (long) DataCalls.Rsockets.WRITEV.invokeExact(state, fd, iov, count)
                    : (long) DataCalls.Kernel.WRITEV.invokeExact(state, fd, iov, count), state);
        } catch (Throwable t) {
            throw rethrown(t);
        }
    }

    /**
     * Reads into the remaining bytes of the direct buffer {@code buffer}; the bytes read (0 at end of stream), or
     * {@link #UNAVAILABLE}. The buffer's segment is an argument of the call, so its memory is checked alive and
     * accessible from this thread before the call and kept from being freed until it returns. It is made here, next
     * to the call: a segment made by a caller escapes into this method whenever the JIT compiled this method on its
     * own first and then does not inline it ("already compiled into a big method"), and a busy-polling reader then
     * allocated one (72 bytes) a read, in some JVMs and not in others.
     */
    long recv(int fd, ByteBuffer buffer, MemorySegment state) throws IOException {
        MemorySegment segment = Segments.usable(MemorySegment.ofBuffer(buffer), "a buffer's memory");
        try {
            return transferred("recv", rdma
                    ? (long) DataCalls.Rsockets.RECV.invokeExact(state, fd, segment, segment.byteSize(), 0)
                    : (long) DataCalls.Kernel.RECV.invokeExact(state, fd, segment, segment.byteSize(), 0), state);
        } catch (Throwable t) {
            throw rethrown(t);
        }
    }

    /** Writes from the remaining bytes of the direct buffer {@code buffer}, as {@link #recv} reads. */
    long send(int fd, ByteBuffer buffer, MemorySegment state) throws IOException {
        MemorySegment segment = Segments.usable(MemorySegment.ofBuffer(buffer), "a buffer's memory");
        try {
            return transferred("send", rdma
                    ? (long) DataCalls.Rsockets.SEND.invokeExact(state, fd, segment, segment.byteSize(), 0)
                    : (long) DataCalls.Kernel.SEND.invokeExact(state, fd, segment, segment.byteSize(), 0), state);
        } catch (Throwable t) {
            throw rethrown(t);
        }
    }

    /** {@code n} as a byte count, {@link #UNAVAILABLE}, or the exception of this kind's {@code call} for errno. */
    long transferred(String call, long n, MemorySegment state) throws IOException {
        if (n >= 0) {
            return n;
        }
        int errno = Errno.read(state);
        if (errno == Libc.EAGAIN || errno == Libc.EINTR) {
            return UNAVAILABLE;
        }
        throw failure(call, errno);
    }

    /**
     * {@code poll} ({@code rpoll} for rsockets, which takes ordinary descriptors too) over {@code count} pollfds,
     * without waiting ({@code forever} false) or until one has an event; the number ready, 0 when a signal came or
     * none was ready. Never with another timeout: librdmacm before rdma-core 63 ("librdmacm: Fix rpoll in case of
     * timeout") loses count of its waiting threads when a positive timeout runs out, after which every {@code rpoll}
     * of the process that would wait spins without end. So a channel in blocking mode waits in turns of
     * {@link Fd#awaitSlice} with {@link #look}, and a timed select waits for ever until a timer wakes it.
     */
    int poll(MemorySegment fds, long count, boolean forever, MemorySegment state) throws IOException {
        int n;
        try {
            int timeout = forever ? -1 : 0;
            n = rdma ? (int) DataCalls.Rsockets.POLL.invokeExact(state, fds, count, timeout)
                    : (int) DataCalls.Kernel.POLL.invokeExact(state, fds, count, timeout);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        if (n < 0) {
            int errno = Errno.read(state);
            if (errno == Libc.EINTR) {
                return 0;
            }
            throw failure("poll", errno);
        }
        return n;
    }

    /** {@link #poll} without waiting: the {@link Fd.Look} of this kind's sockets. */
    int look(MemorySegment fds, long count, MemorySegment state) throws IOException {
        return poll(fds, count, false, state);
    }

    InetSocketAddress localAddress(int fd) throws IOException {
        return address("getsockname", getsockname, fd);
    }

    InetSocketAddress remoteAddress(int fd) throws IOException {
        return address("getpeername", getpeername, fd);
    }

    private InetSocketAddress address(String name, MethodHandle handle, int fd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = SocketAddresses.allocate(arena);
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, (int) sa.byteSize());
            call(name, (state, scratch) -> (int) handle.invokeExact(state, fd, sa, length));
            return SocketAddresses.decode(sa);
        }
    }

    void setInt(int fd, int level, int option, int value) throws IOException {
        call("setsockopt", (state, arena) -> {
            MemorySegment v = arena.allocateFrom(ValueLayout.JAVA_INT, value);
            return (int) setsockopt.invokeExact(state, fd, level, option, v, 4);
        });
    }

    int getInt(int fd, int level, int option) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, 4);
            call("getsockopt", (state, scratch) -> (int) getsockopt.invokeExact(state, fd, level, option, v, length));
            return v.get(ValueLayout.JAVA_INT, 0);
        }
    }

    /** A call that returns an int, -1 with errno on failure; {@link #NONE} for a failure that is an answer. */
    interface NativeCall {
        int run(MemorySegment state, Arena arena) throws Throwable;
    }

    /** What a {@link NativeCall} returns for "nothing now" (no connection waiting, connection under way). */
    private static final int NONE = -2;

    /** Runs {@code c} with an errno capture state and an arena for its arguments; its result, or the exception. */
    int call(String name, NativeCall c) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Errno.allocateState(arena);
            int rc = c.run(state, arena);
            if (rc == NONE) {
                return -1;
            }
            if (rc < 0) {
                throw failure(name, Errno.read(state));
            }
            return rc;
        } catch (Throwable t) {
            throw rethrown(t);
        }
    }

    /** The exception {@code java.net} would throw for {@code errno}, naming this kind's C call. */
    IOException failure(String call, int errno) {
        String message = prefix + call + ": " + Errno.name(errno) + " (" + Errno.describe(errno) + ")";
        if (errno == Libc.ECONNREFUSED || errno == Libc.ETIMEDOUT) {
            return new ConnectException(message);
        }
        if (errno == Libc.EADDRINUSE || errno == Libc.EADDRNOTAVAIL) {
            return new BindException(message);
        }
        if (errno == Libc.EHOSTUNREACH || errno == Libc.ENETUNREACH) {
            return new NoRouteToHostException(message);
        }
        return new IOException(message);
    }

    static IOException rethrown(Throwable t) {
        if (t instanceof IOException e) {
            return e;
        }
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new AssertionError(t);
    }

    @Override
    public String toString() {
        return name;
    }
}
