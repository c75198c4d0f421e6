package io.jrdma.endpoint;

import io.jrdma.bindings.rsocket.rsocket_h;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.internal.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The descriptors a worker blocks on, gathered in one epoll instance: its completion channel's, its CM event
 * channel's, an eventfd that other threads write to wake it, and a timerfd for its timers. The epoll descriptor is
 * itself pollable, which is how an application puts a worker into its own event loop ({@link Worker#arm()}).
 * Used by the worker's thread only, except {@link #wake()}.
 */
@SuppressWarnings("restricted")
final class WakeupPoll implements AutoCloseable {
    static final int COMPLETIONS = 0;
    static final int CM_EVENTS = 1;
    static final int WAKEUP = 2;
    static final int TIMER = 3;
    private static final int COUNT = 4;
    private static final int EPOLLIN = 0x1;
    private static final int EPOLL_CTL_ADD = 1;
    private static final int EPOLL_CLOEXEC = 0x80000;
    private static final int CLOCK_MONOTONIC = 1;
    private static final int TFD_NONBLOCK = 0x800;
    private static final int TFD_CLOEXEC = 0x80000;
    private static final int EINTR = 4;
    /** struct epoll_event is packed on x86-64 only: there the data follows the events word directly. */
    private static final boolean PACKED = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> true;
        default -> false;
    };
    private static final long EVENT_SIZE = PACKED ? 12 : 16;
    private static final long DATA_OFFSET = PACKED ? 4 : 8;
    private static final ValueLayout.OfLong DATA = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final MethodHandle EPOLL_CREATE1 = Errno.capturing(find("epoll_create1"),
            FunctionDescriptor.of(INT, INT));
    private static final MethodHandle EPOLL_CTL = Errno.capturing(find("epoll_ctl"),
            FunctionDescriptor.of(INT, INT, INT, INT, ValueLayout.ADDRESS));
    private static final MethodHandle EPOLL_WAIT = Errno.capturing(find("epoll_wait"),
            FunctionDescriptor.of(INT, INT, ValueLayout.ADDRESS, INT, INT));
    private static final MethodHandle TIMERFD_CREATE = Errno.capturing(find("timerfd_create"),
            FunctionDescriptor.of(INT, INT, INT));
    private static final MethodHandle TIMERFD_SETTIME = Errno.capturing(find("timerfd_settime"),
            FunctionDescriptor.of(INT, INT, INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    private static final MethodHandle READ = LINKER.downcallHandle(find("read"),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));

    private final Arena arena = Arena.ofShared();
    private final MemorySegment events = arena.allocate(COUNT * EVENT_SIZE, 8);
    /** struct itimerspec: interval (0: one shot), then the first expiry. */
    private final MemorySegment timerSpec = arena.allocate(32, 8);
    private final MemorySegment state = Errno.allocateState(arena);
    private final MemorySegment counter = arena.allocate(ValueLayout.JAVA_LONG);
    private final int epollFd;
    private final int eventFd;
    private final int timerFd;
    /** Guards the eventfd against a wake that writes to it while the worker closes it. */
    private final Object wakeLock = new Object();
    private boolean closed;

    WakeupPoll(int completionFd, int cmFd) throws RdmaException {
        int epoll = -1;
        int event = -1;
        int timer = -1;
        try {
            epoll = check("epoll_create1", (int) EPOLL_CREATE1.invokeExact(state, EPOLL_CLOEXEC));
            event = check("eventfd", rsocket_h.eventfd(0, rsocket_h.EFD_NONBLOCK() | rsocket_h.EFD_CLOEXEC()));
            timer = check("timerfd_create",
                    (int) TIMERFD_CREATE.invokeExact(state, CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
            int[] all = {completionFd, cmFd, event, timer};
            MemorySegment e = events.asSlice(0, EVENT_SIZE);
            for (int i = 0; i < COUNT; i++) {
                e.set(INT, 0, EPOLLIN);
                e.set(DATA, DATA_OFFSET, i);
                check("epoll_ctl", (int) EPOLL_CTL.invokeExact(state, epoll, EPOLL_CTL_ADD, all[i], e));
            }
        } catch (RdmaException e) {
            for (int fd : new int[] {timer, event, epoll}) {
                if (fd >= 0) {
                    rsocket_h.close(fd);
                }
            }
            arena.close();
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        epollFd = epoll;
        eventFd = event;
        timerFd = timer;
    }

    private static MemorySegment find(String name) {
        return LINKER.defaultLookup().findOrThrow(name);
    }

    private int check(String call, int rc) throws RdmaException {
        if (rc < 0) {
            throw Errno.exception(call, Errno.read(state));
        }
        return rc;
    }

    /** The epoll descriptor: readable while one of the worker's descriptors is. */
    int fd() {
        return epollFd;
    }

    /**
     * Waits until one of the descriptors is readable or {@code timeoutMillis} pass (0: only looks); a wakeup and an
     * expired timer are consumed here.
     *
     * @return a bit per readable descriptor ({@code 1 << COMPLETIONS}, ...), 0 if none
     */
    int await(int timeoutMillis) throws RdmaException {
        int n;
        try {
            n = (int) EPOLL_WAIT.invokeExact(state, epollFd, events, COUNT, timeoutMillis);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        if (n < 0) {
            int errno = Errno.read(state);
            if (errno == EINTR) {
                return 0;
            }
            throw Errno.exception("epoll_wait", errno);
        }
        int ready = 0;
        for (int i = 0; i < n; i++) {
            ready |= 1 << (int) events.get(DATA, i * EVENT_SIZE + DATA_OFFSET);
        }
        if ((ready & 1 << WAKEUP) != 0) {
            rsocket_h.eventfd_read(eventFd, counter);
        }
        if ((ready & 1 << TIMER) != 0) {
            readCounter(timerFd);
        }
        return ready;
    }

    private void readCounter(int fd) {
        try {
            long ignored = (long) READ.invokeExact(fd, counter, 8L);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Makes the descriptor readable {@code nanos} from now (at least 1), once. */
    void timer(long nanos) throws RdmaException {
        long at = Math.max(1, nanos);
        timerSpec.fill((byte) 0);
        timerSpec.set(ValueLayout.JAVA_LONG, 16, at / 1_000_000_000);
        timerSpec.set(ValueLayout.JAVA_LONG, 24, at % 1_000_000_000);
        try {
            check("timerfd_settime", (int) TIMERFD_SETTIME.invokeExact(state, timerFd, 0, timerSpec,
                    MemorySegment.NULL));
        } catch (RdmaException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Makes a waiting or the next {@link #await} return; from any thread. */
    void wake() {
        synchronized (wakeLock) {
            if (!closed) {
                rsocket_h.eventfd_write(eventFd, 1L);
            }
        }
    }

    @Override
    public void close() {
        synchronized (wakeLock) {
            if (closed) {
                return;
            }
            closed = true;
            rsocket_h.close(eventFd);
        }
        rsocket_h.close(timerFd);
        rsocket_h.close(epollFd);
        arena.close();
    }
}
