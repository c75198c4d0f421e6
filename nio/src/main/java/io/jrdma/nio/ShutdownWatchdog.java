package io.jrdma.nio;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.IntPredicate;

/**
 * Ends an rsocket's graceful shutdown that would wait for ever for its peer. {@code rshutdown}, and {@code rclose},
 * which calls it on a connected rsocket, send the connection's last message and then sleep in a blocking read of
 * the socket's completion channel until every message sent is acknowledged. A peer whose queue pair is gone or in
 * error before it acknowledged never does: a process killed before the connection manager told this one, or, on
 * Soft-RoCE, a peer that takes the last message and tears its queue pair down before its driver sent the
 * acknowledgement. rsockets asks for a transport retry count of 7, which hardware takes as seven retries and then
 * fails the send, but Soft-RoCE as "retry for ever": the read never returns, and with it neither does the close.
 *
 * <p>So a shutdown or close still running after {@link #LIMIT_SECONDS} seconds has that read interrupted: its
 * thread gets the JDK's own I/O interrupt signal, the one the JDK's channels send to free a thread blocked in a read
 * when its channel closes, whose handler is installed without {@code SA_RESTART}. The read returns {@code EINTR},
 * rsockets stops waiting (its errors after that are not reported) and {@code rclose} frees the socket, as with a
 * peer that failed the send. The signal goes only to a thread still inside the call and, by its
 * {@code /proc/self/task/TID/syscall}, in a read of an RDMA event channel: never to one in rsockets' exchange with
 * its connection service thread, whose reads an interruption would put out of step. It is checked again every
 * second, as a signal can come just before the read starts.
 */
final class ShutdownWatchdog {
    /** How long a shutdown may wait for its peer's acknowledgements; a live peer's take milliseconds. */
    static final long LIMIT_SECONDS = 10;
    private static final long RECHECK_SECONDS = 1;
    /** x86-64 Linux's number of {@code read}, as {@code /proc/.../syscall} reports it. */
    private static final String READ = "0";
    /** The JDK's I/O interrupt signal on Linux ({@code sun.nio.ch.NativeThread}): {@code SIGRTMAX - 2}. */
    private static final int SIGRTMAX_OFFSET = 2;
    private static final int SA_RESTART = 0x10000000;
    /** glibc's x86-64 {@code struct sigaction}: handler (8), mask (128), flags (4), padding, restorer (8). */
    private static final long SIGACTION_SIZE = 152;
    private static final long SIGACTION_FLAGS = 136;
    private static final System.Logger LOG = System.getLogger(ShutdownWatchdog.class.getName());

    private ShutdownWatchdog() {
    }

    /** A call of rsockets that may wait for the peer. */
    interface Wait {
        int run() throws Throwable;
    }

    /**
     * Runs {@code wait}, a {@code call} of {@code rshutdown} or {@code rclose} on rsocket {@code fd}, on this thread,
     * and interrupts its wait for the peer if it lasts over {@link #LIMIT_SECONDS}; its result.
     */
    static int run(String call, int fd, Wait wait) throws Throwable {
        if (Native.SIGNAL == 0) {
            return wait.run();
        }
        Watch watch = new Watch(call, fd, ShutdownWatchdog::readsAnRdmaEventChannel, Native::interrupt);
        watch.start();
        int rc;
        try {
            rc = wait.run();
        } finally {
            watch.end();
        }
        if (rc < 0 && watch.interrupted()) {
            throw new IOException("r" + call + ": the peer did not acknowledge the connection's last messages within "
                    + LIMIT_SECONDS + " s; the connection is dropped");
        }
        return rc;
    }

    /**
     * One call under watch: the thread it runs on, and whether it is still inside it. The thread leaves without ever
     * blocking or parking: were a check signalling when it returns, a virtual thread that parked to wait for the check
     * would free its carrier, whose next virtual thread could enter another rsocket's wait and get the signal meant
     * for this one. So it spins while a check runs (rarely, and for the length of a look at {@code /proc}): the
     * signal then reaches a carrier still running this thread's Java code, where it does nothing.
     */
    static final class Watch implements Runnable {
        private static final int INSIDE = 0;
        private static final int CHECKING = 1;
        private static final int OUTSIDE = 2;
        private final String call;
        private final int fd;
        /** Whether a thread sleeps in the wait that the signal ends, by its id. */
        private final IntPredicate waiting;
        private final IntConsumer signal;
        private final AtomicInteger state = new AtomicInteger(INSIDE);
        private volatile ScheduledFuture<?> check;
        private volatile int tid;
        private volatile boolean interrupted;

        Watch(String call, int fd, IntPredicate waiting, IntConsumer signal) {
            this.call = call;
            this.fd = fd;
            this.waiting = waiting;
            this.signal = signal;
        }

        /**
         * Schedules the first check and then takes the thread's id: the schedule may park, and nothing between the
         * id and the call can, so a virtual thread is still on the carrier whose id this is when the call pins it.
         */
        void start() {
            check = ProviderTimer.TIMER.schedule(this, LIMIT_SECONDS, TimeUnit.SECONDS);
            tid = threadId();
        }

        /** The call has returned: no check signals this thread from now on. */
        void end() {
            while (!state.compareAndSet(INSIDE, OUTSIDE)) {
                Thread.onSpinWait();   // a check is running; it ends without waiting for anything
            }
            ScheduledFuture<?> next = check;
            if (next != null) {
                next.cancel(false);
            }
        }

        boolean interrupted() {
            return interrupted;
        }

        @Override
        public void run() {
            if (!state.compareAndSet(INSIDE, CHECKING)) {
                return;   // the call has ended
            }
            try {
                // A read found here is the call's: a thread that returns from the call waits in end() meanwhile.
                if (waiting.test(tid)) {
                    if (!interrupted) {
                        interrupted = true;
                        LOG.log(System.Logger.Level.WARNING, "r{0} of rsocket {1}: its peer has not acknowledged the "
                                + "connection''s last messages for {2} s; the wait is ended and the connection "
                                + "dropped", call, fd, LIMIT_SECONDS);
                    }
                    signal.accept(tid);
                }
                // Before the thread may leave, so that its end() cancels this next check.
                check = ProviderTimer.TIMER.schedule(this, RECHECK_SECONDS, TimeUnit.SECONDS);
            } finally {
                state.set(INSIDE);
            }
        }
    }

    /** The kernel's id of the calling thread (a virtual thread's: its carrier's, while it stays mounted). */
    static int threadId() {
        try {
            return (int) Native.GETTID.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Whether thread {@code tid} of this process sleeps in a {@code read} of an RDMA event channel. */
    static boolean readsAnRdmaEventChannel(int tid) {
        try {
            String[] syscall = Files.readString(Path.of("/proc/self/task/" + tid + "/syscall")).trim().split(" ");
            if (syscall.length < 2 || !syscall[0].equals(READ)) {
                return false;
            }
            long fd = Long.decode(syscall[1]);
            return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString()
                    .equals("anon_inode:[infinibandevent]");
        } catch (IOException | NumberFormatException e) {
            return false;   // the thread or the descriptor is gone: nothing waits
        }
    }

    /**
     * The calls and the signal, found at the first call of {@link #run}. Where any is missing (a C library
     * before glibc 2.30 has no {@code gettid} and {@code tgkill}; a JDK whose interrupt signal has no handler that
     * ends a read), the calls run unwatched, as rsockets has them, and a WARNING says so once.
     */
    private static final class Native {
        static final MethodHandle GETTID;
        private static final MethodHandle TGKILL;
        private static final int PID;
        /** The signal to send, or 0: nothing is watched. */
        static final int SIGNAL;

        static {
            MethodHandle gettid = null;
            MethodHandle tgkill = null;
            int pid = 0;
            int signal = 0;
            try {
                gettid = Libc.downcall(Libc.LOOKUP.findOrThrow("gettid"), FunctionDescriptor.of(ValueLayout.JAVA_INT));
                tgkill = Libc.downcall(Libc.LOOKUP.findOrThrow("tgkill"), Libc.INT_3INT);
                pid = (int) Libc.downcall(Libc.LOOKUP.findOrThrow("getpid"),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT)).invokeExact();
                signal = interruptSignal();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.DEBUG, "the calls that interrupt a thread cannot be found", t);
            }
            if (signal == 0) {
                LOG.log(System.Logger.Level.WARNING, "this JDK or C library cannot interrupt a thread's read: an "
                        + "rsocket whose peer never acknowledges its last messages can keep its close waiting");
            }
            GETTID = gettid;
            TGKILL = tgkill;
            PID = pid;
            SIGNAL = signal;
        }

        /**
         * The JDK's interrupt signal once its handler is installed (by the class that sends it), if the handler
         * interrupts system calls; else 0.
         */
        private static int interruptSignal() throws Throwable {
            Class.forName("sun.nio.ch.NativeThread", true, null);
            MethodHandle sigrtmax = Libc.downcall(Libc.LOOKUP.findOrThrow("__libc_current_sigrtmax"),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT));
            MethodHandle sigaction = Libc.downcall(Libc.LOOKUP.findOrThrow("sigaction"), FunctionDescriptor.of(
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
            int signal = (int) sigrtmax.invokeExact() - SIGRTMAX_OFFSET;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment action = arena.allocate(SIGACTION_SIZE, Long.BYTES);
                if ((int) sigaction.invokeExact(signal, MemorySegment.NULL, action) != 0) {
                    return 0;
                }
                long handler = action.get(ValueLayout.JAVA_LONG, 0);
                int flags = action.get(ValueLayout.JAVA_INT, SIGACTION_FLAGS);
                // SIG_DFL is 0 and SIG_IGN 1: neither interrupts a read.
                return handler > 1 && (flags & SA_RESTART) == 0 ? signal : 0;
            }
        }

        static void interrupt(int tid) {
            try {
                if ((int) TGKILL.invokeExact(PID, tid, SIGNAL) != 0) {
                    LOG.log(System.Logger.Level.DEBUG, "tgkill of thread {0} failed", tid);
                }
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        }
    }
}
