package io.jrdma.ibverbs.internal;

import io.jrdma.ibverbs.RdmaException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.time.Duration;

/**
 * The project's one poller: waiting on file descriptors with poll(2), or with a call of its shape (librdmacm's
 * {@code rpoll}, for jrdma-nio's rsockets). A platform thread waiting on a completion or event channel blocks in
 * poll(2) for bounded slices, so that it notices interruption within {@link #SLICE_MILLIS} ms. A virtual thread
 * never blocks in poll(2), which would pin its carrier for the whole slice (a few waiters would starve every other
 * virtual thread), and neither does a wait whose call must not be given a timeout ({@link #awaitSlice}): they look
 * without waiting and pause between looks, {@link #pause} growing from 10 µs to {@link #MAX_PAUSE}.
 */
@SuppressWarnings("restricted")
public final class Fd {
    static final int SLICE_MILLIS = 50;
    /** The longest pause between two looks. */
    static final Duration MAX_PAUSE = Duration.ofMillis(1);
    private static final long FIRST_PAUSE_NANOS = 10_000;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MemoryLayout POLLFD = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("fd"), ValueLayout.JAVA_SHORT.withName("events"),
            ValueLayout.JAVA_SHORT.withName("revents"));
    private static final short POLLIN = 0x1;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;
    private static final MethodHandle POLL = Errno.capturing(LINKER.defaultLookup().findOrThrow("poll"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle FCNTL = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("fcntl"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2));

    private Fd() {
    }

    /**
     * Waits until {@code fd} is readable or {@code timeout} passes ({@code null}: forever).
     *
     * @return whether it became readable
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public static boolean awaitReadable(int fd, Duration timeout) throws InterruptedException {
        return awaitReadable(fd, timeout, () -> { });
    }

    /**
     * Like {@link #awaitReadable(int, Duration)}, running {@code stillOpen} before every slice: it throws to abandon
     * the wait (e.g. when the object that owns the descriptor is being closed).
     */
    public static boolean awaitReadable(int fd, Duration timeout, Runnable stillOpen) throws InterruptedException {
        long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pfd = arena.allocate(POLLFD);
            MemorySegment state = Errno.allocateState(arena);
            boolean virtual = Thread.currentThread().isVirtual();
            // A zero timeout still looks once (idle 0): an event loop checks without waiting.
            for (int idle = 0; ; idle++) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting on fd " + fd);
                }
                stillOpen.run();
                long left = deadline - System.nanoTime();
                if (left <= 0 && idle > 0) {
                    return false;
                }
                pfd.set(ValueLayout.JAVA_INT, 0, fd);
                pfd.set(ValueLayout.JAVA_SHORT, 4, POLLIN);
                pfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
                int slice = virtual || left <= 0 ? 0 : (int) Math.min(SLICE_MILLIS, Math.max(1, left / 1_000_000));
                int rc = (int) POLL.invokeExact(state, pfd, 1L, slice);
                if (rc > 0) {
                    return true;
                }
                if (rc < 0 && Errno.read(state) != EINTR) {
                    throw new IllegalStateException("poll(2) on fd " + fd + " failed: " + Errno.name(Errno.read(state)));
                }
                if (virtual && left > 0) {
                    Thread.sleep(Duration.ofNanos(Math.min(pause(idle).toNanos(), left)));
                }
            }
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
    }

    /** A look at pollfds that does not wait: poll(2) with a timeout of 0, or a call of its shape. */
    @FunctionalInterface
    public interface Look {
        /**
         * Fills in the returned events of the {@code count} pollfds at {@code fds}; how many have some, 0 if none
         * has (or a signal came).
         *
         * @param errnoState an errno capture state ({@link Errno#allocateState}) for the call
         * @throws IOException if the call failed
         */
        int look(MemorySegment fds, long count, MemorySegment errnoState) throws IOException;
    }

    /** The events of {@code events} that {@code fd} has now, as {@code look} sees them, without waiting. */
    public static int ready(Look look, int fd, short events) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pfd = arena.allocate(POLLFD);
            pfd.set(ValueLayout.JAVA_INT, 0, fd);
            pfd.set(ValueLayout.JAVA_SHORT, 4, events);
            look.look(pfd, 1, Errno.allocateState(arena));
            return pfd.get(ValueLayout.JAVA_SHORT, 6);
        }
    }

    /**
     * One turn of a wait that never blocks in the call (a call that must not be given a timeout, as librdmacm's
     * {@code rpoll} before rdma-core 63): the events of {@code events} that {@code fd} has now, or 0 after a
     * {@link #pause} if none; {@code idle} counts the turns this wait made before. An interrupt ends the pause and
     * stays set, for the caller's close-on-interrupt to see; the caller notices a close at its next turn.
     */
    public static int awaitSlice(Look look, int fd, short events, int idle) throws IOException {
        int revents = ready(look, fd, events);
        if (revents == 0) {
            try {
                Thread.sleep(pause(idle));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return revents;
    }

    /** The pause after {@code idle} looks that found nothing: 10 µs, doubling each, up to {@link #MAX_PAUSE}. */
    public static Duration pause(int idle) {
        Duration pause = Duration.ofNanos(FIRST_PAUSE_NANOS << Math.min(idle, 20));
        return pause.compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause;
    }

    /** A non-blocking read of one event: 0 when it got one, else non-zero with errno in the capture state. */
    @FunctionalInterface
    public interface EventRead {
        int read() throws Throwable;
    }

    /**
     * Waits until {@code fd} is readable and {@code read} gets an event, until {@code timeout} ({@code null}:
     * forever). A read that finds nothing (EAGAIN: another thread took the event) waits again.
     *
     * @return whether an event was read
     * @throws RdmaException        when the read fails otherwise, as {@code verb}
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public static boolean awaitEvent(int fd, Duration timeout, String verb, MemorySegment state, EventRead read)
            throws RdmaException, InterruptedException {
        return awaitEvent(fd, timeout, verb, state, read, () -> { });
    }

    /** Like {@link #awaitEvent(int, Duration, String, MemorySegment, EventRead)}, abandoned when {@code stillOpen} throws. */
    public static boolean awaitEvent(int fd, Duration timeout, String verb, MemorySegment state, EventRead read,
                                     Runnable stillOpen) throws RdmaException, InterruptedException {
        long deadline = timeout == null ? 0 : System.nanoTime() + timeout.toNanos();
        while (true) {
            Duration left = timeout == null ? null : Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            if (!awaitReadable(fd, left, stillOpen)) {
                return false;
            }
            int rc;
            try {
                rc = read.read();
            } catch (RuntimeException e) {
                throw e;
            } catch (Throwable t) {
                throw DataPath.rethrow(t);
            }
            if (rc == 0) {
                return true;
            }
            if (Errno.read(state) != EAGAIN) {
                throw Errno.exception(verb, Errno.read(state));
            }
        }
    }

    /** Puts {@code fd} in non-blocking mode, so that reading an event that another thread took cannot block. */
    public static void setNonBlocking(int fd) {
        try {
            int flags = (int) FCNTL.invokeExact(fd, F_GETFL, 0);
            if (flags < 0 || (int) FCNTL.invokeExact(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
                throw new IllegalStateException("fcntl(O_NONBLOCK) failed on fd " + fd);
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
    }
}
