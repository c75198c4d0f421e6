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
 * The descriptors a worker blocks on, in one poll(2): its completion channel's, its CM event channel's and an
 * eventfd that other threads write to wake it. Used by the worker's thread only, except {@link #wake()}.
 */
@SuppressWarnings("restricted")
final class WakeupPoll implements AutoCloseable {
    static final int COMPLETIONS = 0;
    static final int CM_EVENTS = 1;
    static final int WAKEUP = 2;
    private static final short POLLIN = 0x1;
    private static final int EINTR = 4;
    private static final int POLLFD_SIZE = 8;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle POLL = Errno.capturing(LINKER.defaultLookup().findOrThrow("poll"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));

    private final Arena arena = Arena.ofShared();
    private final MemorySegment fds = arena.allocate(3L * POLLFD_SIZE, 8);
    private final MemorySegment state = Errno.allocateState(arena);
    private final MemorySegment counter = arena.allocate(ValueLayout.JAVA_LONG);
    private final int eventFd;
    /** Guards the eventfd against a wake that writes to it while the worker closes it. */
    private final Object wakeLock = new Object();
    private boolean closed;

    WakeupPoll(int completionFd, int cmFd) throws RdmaException {
        eventFd = rsocket_h.eventfd(0, rsocket_h.EFD_NONBLOCK() | rsocket_h.EFD_CLOEXEC());
        if (eventFd < 0) {
            arena.close();
            throw new RdmaException("eventfd", 0, "", "could not create the worker's wakeup descriptor");
        }
        int[] all = {completionFd, cmFd, eventFd};
        for (int i = 0; i < all.length; i++) {
            fds.set(ValueLayout.JAVA_INT, (long) i * POLLFD_SIZE, all[i]);
            fds.set(ValueLayout.JAVA_SHORT, (long) i * POLLFD_SIZE + 4, POLLIN);
        }
    }

    /**
     * Waits until one of the descriptors is readable or {@code timeoutMillis} pass; a wakeup is consumed here.
     *
     * @return a bit per readable descriptor ({@code 1 << COMPLETIONS}, ...), 0 if none
     */
    int await(int timeoutMillis) throws RdmaException {
        for (int i = 0; i < 3; i++) {
            fds.set(ValueLayout.JAVA_SHORT, (long) i * POLLFD_SIZE + 6, (short) 0);
        }
        int rc;
        try {
            rc = (int) POLL.invokeExact(state, fds, 3L, timeoutMillis);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        if (rc < 0) {
            int errno = Errno.read(state);
            if (errno == EINTR) {
                return 0;
            }
            throw Errno.exception("poll", errno);
        }
        int ready = 0;
        for (int i = 0; i < 3; i++) {
            if (fds.get(ValueLayout.JAVA_SHORT, (long) i * POLLFD_SIZE + 6) != 0) {
                ready |= 1 << i;
            }
        }
        if ((ready & 1 << WAKEUP) != 0) {
            rsocket_h.eventfd_read(eventFd, counter);
        }
        return ready;
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
        arena.close();
    }
}
