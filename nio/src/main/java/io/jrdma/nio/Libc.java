package io.jrdma.nio;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The C library's constants (Linux's values) and the shapes of the socket calls, written here rather than taken from
 * the generated rsocket bindings, whose class loads librdmacm: a process that runs only TCP channels must work where
 * rdma-core is not installed. rsockets' calls have the same shapes as the kernel's.
 */
final class Libc {
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_STREAM = 1;
    static final int SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2;
    static final int SO_ERROR = 4;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_KEEPALIVE = 9;
    static final int IPPROTO_TCP = 6;
    static final int TCP_NODELAY = 1;
    static final int SHUT_RD = 0;
    static final int SHUT_WR = 1;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int O_NONBLOCK = 04000;
    static final int EFD_NONBLOCK = 04000;
    static final int EFD_CLOEXEC = 02000000;
    static final short POLLIN = 0x1;
    static final short POLLOUT = 0x4;
    static final short POLLERR = 0x8;
    static final short POLLHUP = 0x10;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int EADDRINUSE = 98;
    static final int EADDRNOTAVAIL = 99;
    static final int ENETUNREACH = 101;
    static final int ETIMEDOUT = 110;
    static final int ECONNREFUSED = 111;
    static final int EHOSTUNREACH = 113;
    static final int EINPROGRESS = 115;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout POINTER = ValueLayout.ADDRESS;

    /** {@code int f(int)}: close. */
    static final FunctionDescriptor INT_INT = FunctionDescriptor.of(INT, INT);
    /** {@code int f(int, int)}: listen, shutdown, eventfd. */
    static final FunctionDescriptor INT_INT_INT = FunctionDescriptor.of(INT, INT, INT);
    /** {@code int f(int, int, int)}: socket. */
    static final FunctionDescriptor INT_3INT = FunctionDescriptor.of(INT, INT, INT, INT);
    /** {@code int f(int, const struct sockaddr *, socklen_t)}: bind, connect. */
    static final FunctionDescriptor ADDRESS_IN = FunctionDescriptor.of(INT, INT, POINTER, INT);
    /** {@code int f(int, struct sockaddr *, socklen_t *)}: accept, getsockname, getpeername. */
    static final FunctionDescriptor ADDRESS_OUT = FunctionDescriptor.of(INT, INT, POINTER, POINTER);
    /** {@code ssize_t f(int, const struct iovec *, int)}: readv, writev. */
    static final FunctionDescriptor VECTORED = FunctionDescriptor.of(LONG, INT, POINTER, INT);
    /** {@code ssize_t f(int, void *, size_t, int)}: recv, send. */
    static final FunctionDescriptor BUFFERED = FunctionDescriptor.of(LONG, INT, POINTER, LONG, INT);
    /** {@code int setsockopt(int, int, int, const void *, socklen_t)}. */
    static final FunctionDescriptor SETSOCKOPT = FunctionDescriptor.of(INT, INT, INT, INT, POINTER, INT);
    /** {@code int getsockopt(int, int, int, void *, socklen_t *)}. */
    static final FunctionDescriptor GETSOCKOPT = FunctionDescriptor.of(INT, INT, INT, INT, POINTER, POINTER);
    /** {@code int poll(struct pollfd *, nfds_t, int)}. */
    static final FunctionDescriptor POLL = FunctionDescriptor.of(INT, POINTER, LONG, INT);
    /** {@code int eventfd_read(int, eventfd_t *)}. */
    static final FunctionDescriptor EVENTFD_READ = FunctionDescriptor.of(INT, INT, POINTER);
    /** {@code int eventfd_write(int, eventfd_t)}. */
    static final FunctionDescriptor EVENTFD_WRITE = FunctionDescriptor.of(INT, INT, LONG);

    /** The C library's symbols, which every process has. */
    static final SymbolLookup LOOKUP = Linker.nativeLinker().defaultLookup();

    private Libc() {
    }

    /** A handle on {@code symbol}, a C function of {@code shape}, that captures no errno. */
    @SuppressWarnings("restricted")   // the shapes above are the C declarations'
    static MethodHandle downcall(MemorySegment symbol, FunctionDescriptor shape, Linker.Option... options) {
        return Linker.nativeLinker().downcallHandle(symbol, shape, options);
    }
}
