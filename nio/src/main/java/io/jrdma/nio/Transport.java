package io.jrdma.nio;

import io.jrdma.bindings.rsocket.rsocket_h;
import io.jrdma.ibverbs.internal.Errno;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;

/**
 * The socket calls of one kind of stream socket: librdmacm's rsockets ({@code rsocket}, {@code rbind}, ...) or the
 * kernel's TCP sockets ({@code socket}, {@code bind}, ...), whose signatures are the same. Every socket is made
 * non-blocking: channels in blocking mode wait with {@link Poller} instead, so that they can notice a close and
 * give up a virtual thread's carrier.
 */
final class Transport {
    /** librdmacm's rsockets: the stream runs over an RDMA reliable connection. */
    static final Transport RDMA = new Transport("rdma", "r", rsocket_h.rfcntl.makeInvoker().handle(),
            rsocket_h.rfcntl.makeInvoker(rsocket_h.C_INT).handle(), new MemorySegment[] {
        rsocket_h.rsocket$address(), rsocket_h.rbind$address(), rsocket_h.rlisten$address(),
        rsocket_h.raccept$address(), rsocket_h.rconnect$address(), rsocket_h.rshutdown$address(),
        rsocket_h.rclose$address(), rsocket_h.rreadv$address(), rsocket_h.rwritev$address(),
        rsocket_h.rgetsockname$address(), rsocket_h.rgetpeername$address(), rsocket_h.rsetsockopt$address(),
        rsocket_h.rgetsockopt$address(), rsocket_h.rrecv$address(), rsocket_h.rsend$address()});
    /** The kernel's TCP sockets. */
    static final Transport TCP = new Transport("tcp", "", rsocket_h.fcntl.makeInvoker().handle(),
            rsocket_h.fcntl.makeInvoker(rsocket_h.C_INT).handle(), new MemorySegment[] {
        rsocket_h.socket$address(), rsocket_h.bind$address(), rsocket_h.listen$address(),
        rsocket_h.accept$address(), rsocket_h.connect$address(), rsocket_h.shutdown$address(),
        rsocket_h.close$address(), rsocket_h.readv$address(), rsocket_h.writev$address(),
        rsocket_h.getsockname$address(), rsocket_h.getpeername$address(), rsocket_h.setsockopt$address(),
        rsocket_h.getsockopt$address(), rsocket_h.recv$address(), rsocket_h.send$address()});

    /** What the reads and writes return when the socket has nothing to give or no room. */
    static final long UNAVAILABLE = -2;

    private final String name;
    private final String prefix;
    private final MethodHandle socket;
    private final MethodHandle bind;
    private final MethodHandle listen;
    private final MethodHandle accept;
    private final MethodHandle connect;
    private final MethodHandle shutdown;
    private final MethodHandle close;
    private final MethodHandle readv;
    private final MethodHandle writev;
    private final MethodHandle getsockname;
    private final MethodHandle getpeername;
    private final MethodHandle setsockopt;
    private final MethodHandle getsockopt;
    private final MethodHandle recv;
    private final MethodHandle send;
    /** {@code fcntl(fd, F_GETFL)} and {@code fcntl(fd, F_SETFL, flags)}: variadic, so their own handles. */
    private final MethodHandle getFlags;
    private final MethodHandle setFlags;

    /** {@code calls} in the order of the fields; the descriptors are the same for both kinds. */
    private Transport(String name, String prefix, MethodHandle getFlags, MethodHandle setFlags,
                      MemorySegment[] calls) {
        this.name = name;
        this.prefix = prefix;
        this.getFlags = getFlags;
        this.setFlags = setFlags;
        socket = Errno.capturing(calls[0], rsocket_h.socket$descriptor());
        bind = Errno.capturing(calls[1], rsocket_h.bind$descriptor());
        listen = Errno.capturing(calls[2], rsocket_h.listen$descriptor());
        accept = Errno.capturing(calls[3], rsocket_h.accept$descriptor());
        connect = Errno.capturing(calls[4], rsocket_h.connect$descriptor());
        shutdown = Errno.capturing(calls[5], rsocket_h.shutdown$descriptor());
        close = Errno.capturing(calls[6], rsocket_h.close$descriptor());
        readv = Errno.capturing(calls[7], rsocket_h.readv$descriptor());
        writev = Errno.capturing(calls[8], rsocket_h.writev$descriptor());
        getsockname = Errno.capturing(calls[9], rsocket_h.getsockname$descriptor());
        getpeername = Errno.capturing(calls[10], rsocket_h.getpeername$descriptor());
        setsockopt = Errno.capturing(calls[11], rsocket_h.setsockopt$descriptor());
        getsockopt = Errno.capturing(calls[12], rsocket_h.getsockopt$descriptor());
        recv = Errno.capturing(calls[13], rsocket_h.recv$descriptor());
        send = Errno.capturing(calls[14], rsocket_h.send$descriptor());
    }

    /** Whether this is {@link #RDMA}. */
    boolean isRdma() {
        return this == RDMA;
    }

    /** A new non-blocking stream socket of {@code family}. */
    int socket(int family) throws IOException {
        // rsocket() of rdma-core before 63 takes no SOCK_NONBLOCK or SOCK_CLOEXEC in the type: fcntl does it.
        int fd = call("socket", (state, arena) -> (int) socket.invokeExact(state, family, rsocket_h.SOCK_STREAM(), 0));
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
            return rc < 0 && Errno.read(state) == rsocket_h.EAGAIN() ? NONE : rc;
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
            int flags = (int) getFlags.invokeExact(fd, rsocket_h.F_GETFL());
            if (flags < 0 || (int) setFlags.invokeExact(fd, rsocket_h.F_SETFL(), flags | rsocket_h.O_NONBLOCK()) < 0) {
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
            return rc < 0 && Errno.read(state) == rsocket_h.EINPROGRESS() ? NONE : rc;
        }) == 0;
    }

    /** The error a connection under way ended with ({@code SO_ERROR}), or 0. */
    int pendingError(int fd) throws IOException {
        return getInt(fd, rsocket_h.SOL_SOCKET(), rsocket_h.SO_ERROR());
    }

    /** The exception for a connection that failed with {@code errno}, as {@link #pendingError} reports it. */
    IOException connectFailure(int errno) {
        return failure("connect", errno);
    }

    void shutdown(int fd, int how) throws IOException {
        call("shutdown", (state, arena) -> (int) shutdown.invokeExact(state, fd, how));
    }

    void close(int fd) throws IOException {
        call("close", (state, arena) -> (int) close.invokeExact(state, fd));
    }

    /** Reads into {@code count} iovecs; the bytes read (0 at end of stream), or {@link #UNAVAILABLE}. */
    long readv(int fd, MemorySegment iov, int count, MemorySegment state) throws IOException {
        try {
            return transferred("readv", (long) readv.invokeExact(state, fd, iov, count), state);
        } catch (Throwable t) {
            throw rethrown(t);
        }
    }

    /** Writes from {@code count} iovecs; the bytes written, or {@link #UNAVAILABLE}. */
    long writev(int fd, MemorySegment iov, int count, MemorySegment state) throws IOException {
        try {
            return transferred("writev", (long) writev.invokeExact(state, fd, iov, count), state);
        } catch (Throwable t) {
            throw rethrown(t);
        }
    }

    /**
     * Reads into {@code buffer}; the bytes read (0 at end of stream), or {@link #UNAVAILABLE}. The buffer is an
     * argument of the call, so its memory is checked alive and accessible from this thread before the call and kept
     * from being freed until it returns.
     */
    long recv(int fd, MemorySegment buffer, MemorySegment state) throws IOException {
        try {
            return transferred("recv", (long) recv.invokeExact(state, fd, buffer, buffer.byteSize(), 0), state);
        } catch (Throwable t) {
            throw rethrown(t);
        }
    }

    /** Writes from {@code buffer}, held for the call as by {@link #recv}; the bytes written, or {@link #UNAVAILABLE}. */
    long send(int fd, MemorySegment buffer, MemorySegment state) throws IOException {
        try {
            return transferred("send", (long) send.invokeExact(state, fd, buffer, buffer.byteSize(), 0), state);
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
        if (errno == rsocket_h.EAGAIN() || errno == rsocket_h.EINTR()) {
            return UNAVAILABLE;
        }
        throw failure(call, errno);
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
        if (errno == rsocket_h.ECONNREFUSED() || errno == rsocket_h.ETIMEDOUT()) {
            return new ConnectException(message);
        }
        if (errno == rsocket_h.EADDRINUSE() || errno == rsocket_h.EADDRNOTAVAIL()) {
            return new BindException(message);
        }
        if (errno == rsocket_h.EHOSTUNREACH() || errno == rsocket_h.ENETUNREACH()) {
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
