package io.jrdma.ibverbs.internal;

import io.jrdma.ibverbs.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.time.Duration;

/**
 * Waiting on the file descriptors of completion and event channels with poll(2): bounded slices, so that a
 * waiting thread notices interruption within {@link #SLICE_MILLIS} ms. A virtual thread never blocks in poll(2),
 * which would pin its carrier for the whole slice (a few waiters would starve every other virtual thread): it checks
 * without blocking and sleeps between checks, a little longer each time up to {@link #VIRTUAL_MAX_SLEEP_NANOS}.
 */
@SuppressWarnings("restricted")
public final class Fd {
    static final int SLICE_MILLIS = 50;
    static final long VIRTUAL_MAX_SLEEP_NANOS = 2_000_000;
    private static final long VIRTUAL_FIRST_SLEEP_NANOS = 20_000;
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
            long sleep = VIRTUAL_FIRST_SLEEP_NANOS;
            // A zero timeout still looks once: an event loop checks without waiting.
            boolean looked = false;
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting on fd " + fd);
                }
                stillOpen.run();
                long left = deadline - System.nanoTime();
                if (left <= 0 && looked) {
                    return false;
                }
                pfd.set(ValueLayout.JAVA_INT, 0, fd);
                pfd.set(ValueLayout.JAVA_SHORT, 4, POLLIN);
                pfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
                int slice = virtual || left <= 0 ? 0 : (int) Math.min(SLICE_MILLIS, Math.max(1, left / 1_000_000));
                int rc = (int) POLL.invokeExact(state, pfd, 1L, slice);
                looked = true;
                if (rc > 0) {
                    return true;
                }
                if (rc < 0 && Errno.read(state) != EINTR) {
                    throw new IllegalStateException("poll(2) on fd " + fd + " failed: " + Errno.name(Errno.read(state)));
                }
                if (virtual && left > 0) {
                    Thread.sleep(Duration.ofNanos(Math.min(sleep, left)));
                    sleep = Math.min(sleep * 2, VIRTUAL_MAX_SLEEP_NANOS);
                }
            }
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
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
