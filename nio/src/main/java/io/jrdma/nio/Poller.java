package io.jrdma.nio;

import io.jrdma.bindings.rsocket.pollfd;
import io.jrdma.ibverbs.internal.Errno;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * The look at one socket's events, and the wait of a channel in blocking mode; both poll with the socket's
 * {@link Transport#poll}.
 *
 * <p>{@code rpoll} is only ever called with a timeout of 0 (look, do not wait) or -1 (wait until an event). librdmacm
 * before rdma-core 63 ("librdmacm: Fix rpoll in case of timeout") loses count of its waiting threads when a positive
 * timeout runs out, after which every {@code rpoll} of the process that would wait spins without end.
 *
 * <p>A channel in blocking mode therefore waits by looking and pausing: it polls without waiting and sleeps between
 * polls, 10 µs at first and doubling up to {@link #MAX_PAUSE}. It notices a close (or, through it, an interrupt) at
 * the next look, and a virtual thread never holds its carrier in native code while it waits. The cost is latency,
 * up to one pause, when data comes after a quiet spell.
 */
final class Poller {
    /** The longest pause between two looks of a blocking wait. */
    private static final Duration MAX_PAUSE = Duration.ofMillis(1);

    private Poller() {
    }

    /** The events of {@code events} that {@code fd}, a socket of {@code transport}, has now, without waiting. */
    static int ready(Transport transport, int fd, int events) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pfd = pollfd.allocate(arena);
            pollfd.fd(pfd, fd);
            pollfd.events(pfd, (short) events);
            transport.poll(pfd, 1, false, Errno.allocateState(arena));
            return pollfd.revents(pfd);
        }
    }

    /**
     * One look of a blocking wait for {@code events} on {@code fd}, and a pause if none came; {@code idle} counts the
     * looks this wait made before. Returns the events that came, or 0. An interrupt ends the pause and stays set.
     */
    static int awaitSlice(Transport transport, int fd, int events, int idle) throws IOException {
        int revents = ready(transport, fd, events);
        if (revents == 0) {
            try {
                Thread.sleep(pause(idle));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return revents;
    }

    /** 10 µs, doubling each idle look, up to {@link #MAX_PAUSE}. */
    static Duration pause(int idle) {
        Duration pause = Duration.ofNanos(10_000L << Math.min(idle, 20));
        return pause.compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause;
    }
}
