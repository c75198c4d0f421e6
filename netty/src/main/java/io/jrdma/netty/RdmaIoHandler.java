package io.jrdma.netty;

import io.jrdma.endpoint.GatherList;
import io.jrdma.endpoint.Worker;
import io.jrdma.endpoint.WorkerOptions;
import io.jrdma.endpoint.internal.IdleSpin;
import io.jrdma.ibverbs.RdmaException;
import io.netty.channel.ChannelException;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.MultithreadEventExecutorGroup;
import io.netty.util.concurrent.ThreadAwareExecutor;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Netty's I/O over RDMA: each event loop of a {@link io.netty.channel.MultiThreadIoEventLoopGroup} made with
 * {@link #newFactory} drives one endpoint {@link Worker} of its own on the loop's thread, which is the worker's
 * thread: completions, connection-manager events and the endpoints' callbacks all run there, between Netty's tasks.
 * The worker opens when the loop's first channel registers, so a loop that only runs tasks holds no device resources.
 * When Netty lets the loop block and it has had no work for the options' {@link WorkerOptions#spin() spin} (it
 * busy-polls that long, as a started worker does), it blocks in the worker's wait (its completion channel,
 * connection-manager channel, eventfd and timer, in one epoll) for no longer than the loop's next scheduled task;
 * another thread's task wakes it through the worker's eventfd (a loop with no worker yet parks its thread). A spin
 * longer than the gaps between a connection's messages keeps a latency-bound loop from ever paying a wake-up, at the
 * cost of a busy core. In an auto-scaling group
 * ({@link io.netty.util.concurrent.AutoScalingEventExecutorChooserFactory}) a loop that is suspended closes its worker
 * first, once nothing is under way on it, and the thread that resumes it opens a new one for its next channel.
 *
 * {@snippet class=io.jrdma.netty.snippets.NettySnippets region=echo}
 */
public final class RdmaIoHandler implements IoHandler {
    /** Progress rounds per run while there is work: each polls a batch of completions and runs the worker's tasks. */
    private static final int ROUNDS = 16;
    private static final Runnable NOTHING = () -> { };

    private final InetAddress address;
    private final WorkerOptions options;
    private final ThreadAwareExecutor executor;
    /** The executor as Netty's event loop, whose state says when it suspends or shuts down; null if it is not one. */
    private final EventExecutor loop;
    /** When the loop has found nothing for its spin time and may block. */
    private final IdleSpin spin;
    /** Whether the loop's thread blocks or is about to: only then does another thread's wakeup write the eventfd. */
    private final AtomicBoolean blocking = new AtomicBoolean();
    private final List<RdmaRegistration> registrations = new ArrayList<>();
    /** Channels with reads to hand to their pipelines once the worker's round is over. */
    private final ArrayDeque<ReadQueue> readable = new ArrayDeque<>();
    private volatile Worker worker;
    /** The loop's thread while it has no worker, which {@link #wakeup} unparks. */
    private volatile Thread thread;
    /**
     * The loop is one of an auto-scaling group, which weighs its loops by the time they work: only then does a run
     * read the clock to report it (a clock read in every run was a tenth of a busy-polling loop on an emulated CPU).
     */
    private boolean reportsWork;

    private RdmaIoHandler(InetAddress address, WorkerOptions options, ThreadAwareExecutor executor) {
        this.address = address;
        this.options = options;
        this.executor = executor;
        this.loop = executor instanceof EventExecutor e ? e : null;
        this.spin = new IdleSpin(options.spin());
    }

    /**
     * The options {@link #newFactory(InetAddress)} gives each loop's worker: {@link WorkerOptions#defaults()} with a
     * send queue of 192 per connection instead of 64. A channel posts what it is given until the endpoint refuses,
     * and a send's queue slot comes back only when the peer's acknowledgement does, which lags behind the credits
     * the peer returns: with 64 slots a stream runs out of slots, not credits (see the architecture page).
     *
     * @return the transport's default options
     */
    public static WorkerOptions defaultOptions() {
        WorkerOptions defaults = WorkerOptions.defaults();
        return defaults.withDepths(192, defaults.readDepth());
    }

    /**
     * Options for loops that carry streams of writes of a few KiB (a proxy, a replication or shuffle stream):
     * {@link #defaultOptions()} with messages of 64 KiB, at most 16 connections a loop, keeping 32 credits, and gather
     * lists of 16 pieces. A flush gathers writes into one message (the loop's registered buffers of 4 KiB or more in
     * place, smaller ones copied), so one device message (a credit, a receive,
     * a completion, a pass through the pipelines) carries up to sixteen 4 KiB writes instead of one; in the real-time
     * bed the 4 KiB pipelined echo moved 2.35 times the messages of the defaults' (medians of three rounds). The
     * cost is memory: each loop's receive buffers take 32 MiB (2 MiB a connection) where the defaults' 4096 buffers
     * of 4 KiB take 16 MiB for 128 connections, and a small message still holds a 64 KiB buffer until it is
     * released. Both sides of a connection need the same message size: give the servers' and the clients' loops
     * these options alike.
     *
     * {@snippet class=io.jrdma.netty.snippets.NettySnippets region=streaming}
     *
     * @return the options, to pass to {@link #newFactory(InetAddress, WorkerOptions)} (change the connections a loop
     *         holds with {@link WorkerOptions#withCredits})
     */
    public static WorkerOptions streamingOptions() {
        return defaultOptions().withMessageSize(64 << 10).withCredits(32, 16)
                .withGatherPieces(GatherList.MAX_PIECES);
    }

    /**
     * A factory of handlers whose workers open on the RDMA device that has {@code deviceAddress}, with the
     * {@link #defaultOptions()}.
     *
     * @param deviceAddress an IP address of the RDMA device
     * @return the factory, for {@link io.netty.channel.MultiThreadIoEventLoopGroup}
     */
    public static IoHandlerFactory newFactory(InetAddress deviceAddress) {
        return newFactory(deviceAddress, defaultOptions());
    }

    /**
     * A factory of handlers whose workers open on the RDMA device that has {@code deviceAddress}.
     *
     * @param deviceAddress an IP address of the RDMA device; channels connect from it and servers listen on it
     * @param options       each loop's worker's options: its largest message (the receive buffers' size), credits,
     *                      connections per loop ({@link WorkerOptions#maxEndpoints()}) and failure detection
     * @return the factory, for {@link io.netty.channel.MultiThreadIoEventLoopGroup}
     */
    public static IoHandlerFactory newFactory(InetAddress deviceAddress, WorkerOptions options) {
        Objects.requireNonNull(deviceAddress, "deviceAddress");
        Objects.requireNonNull(options, "options");
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(ThreadAwareExecutor executor) {
                return new RdmaIoHandler(deviceAddress, options, executor);
            }

            /** An auto-scaling group may suspend an idle loop and resume it on another thread; see the class. */
            @Override
            public boolean isChangingThreadSupported() {
                return true;
            }
        };
    }

    /**
     * Netty calls it each time the loop starts a thread, again after a suspension. It opens no worker: the loop's
     * first registration does, on the loop's thread, which the worker is confined to.
     */
    @Override
    public void initialize() {
        // Here, not in the constructor: the group makes its loops before the chooser that scales them.
        reportsWork = loop != null && loop.parent() instanceof MultithreadEventExecutorGroup g
                && !g.executorUtilizations().isEmpty();
        thread = Thread.currentThread();
    }

    /**
     * Opens the loop's worker for its first channel, or its first since a suspension closed the one before.
     *
     * @throws IOException if the worker cannot be opened (no RDMA device has the address, the locked-memory limit is
     *                     too low, or the device's queues cannot hold what the options ask for): the registration
     *                     fails with it, and the next one tries again
     */
    private void openWorker() throws IOException {
        Worker w;
        try {
            w = Worker.open(address, options);
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("no RDMA worker on " + address.getHostAddress(), e);
        }
        RdmaByteBufAllocator.enter(w.buffers());
        worker = w;
    }

    @Override
    public int run(IoHandlerContext context) {
        Worker w = worker;
        if (w == null) {
            parkUnlessWork(context);
            return 0;
        }
        int work = 0;
        try {
            if (spin.spun()) {
                blocking.set(true);
                // After the flag, so that a task added since Netty looked at its queue writes the eventfd.
                if (readable.isEmpty() && context.canBlock()) {
                    work = w.await(Duration.ofNanos(Math.max(0, context.delayNanos(System.nanoTime()))));
                }
                blocking.set(false);
            }
            // The time the loop worked, not the time it waited or spun.
            boolean report = reportsWork && context.shouldReportActiveIoTime();
            long start = report ? System.nanoTime() : 0;
            work += deliverReads();
            for (int i = 0; i < ROUNDS; i++) {
                int n = w.progress();
                work += n + deliverReads();
                if (n == 0) {
                    break;
                }
            }
            if (report) {
                context.reportActiveIoTime(work > 0 ? System.nanoTime() - start : 0);
            }
            spin.ran(work > 0);
            if (loop != null && loop.isSuspended()) {
                closeForSuspension(work);
            }
        } catch (RdmaException e) {
            // The completion queue or the worker's wait failed: nothing on this loop can make progress any more.
            throw new ChannelException(w + " failed", e);
        }
        return work;
    }

    /**
     * The loop was asked to suspend (an auto-scaling group's idle loop gives up its thread, and a later task starts a
     * new one, on which Netty initializes the handler again). The worker is confined to this thread, and nothing could
     * close it once the thread has ended, so it closes now, once a run found nothing to do and nothing is under way;
     * until then a task keeps the loop from suspending, so that a connection still closing finishes its disconnect
     * here. Netty suspends a loop only when no channel is registered with it.
     */
    private void closeForSuspension(int work) throws RdmaException {
        if (!registrations.isEmpty()) {
            return;   // Netty does not suspend it
        }
        Worker w = worker;
        if (work > 0 || !readable.isEmpty() || !w.isIdle()) {
            loop.execute(NOTHING);
            return;
        }
        RdmaByteBufAllocator.leave();
        worker = null;
        w.close();
    }

    /**
     * One read for each channel that had reads waiting when it was called; a channel with more to read after its read
     * is read again after the worker's next progress, and after Netty's tasks if the run ends first. So a channel
     * whose backlog takes many reads (a small receive allocator's guess) holds up neither the completions of the
     * loop's other channels nor its tasks and timers, as a socket transport's read loop ends after its messages per
     * read.
     *
     * @return the channels read
     */
    private int deliverReads() {
        int n = readable.size();
        for (int i = 0; i < n; i++) {
            readable.poll().deliver();
        }
        return n;
    }

    /** Hands {@code queue}'s reads to its pipeline after the current round of the worker's. */
    void readable(ReadQueue queue) {
        readable.add(queue);
    }

    /**
     * A loop with no worker has nothing of its own to wait for: it parks until its next scheduled task or another
     * thread's wakeup, under the same flag as a worker's wait.
     */
    private void parkUnlessWork(IoHandlerContext context) {
        blocking.set(true);
        if (context.canBlock()) {
            LockSupport.parkNanos(Math.max(0, context.delayNanos(System.nanoTime())));
        }
        blocking.set(false);
    }

    @Override
    public void prepareToDestroy() {
        for (RdmaRegistration r : List.copyOf(registrations)) {
            r.closeHandle();
        }
    }

    @Override
    public void destroy() {
        RdmaByteBufAllocator.leave();
        Worker w = worker;
        if (w != null) {
            try {
                w.close();
            } catch (RdmaException e) {
                throw new ChannelException("closing " + w, e);
            }
        }
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        if (!(handle instanceof RdmaIoHandle h)) {
            throw new IllegalArgumentException(handle + " is not a jrdma channel's");
        }
        if (worker == null) {
            openWorker();
        }
        RdmaRegistration r = new RdmaRegistration(this, h);
        registrations.add(r);
        h.registered();
        return r;
    }

    void unregistered(RdmaRegistration r) {
        registrations.remove(r);
    }

    @Override
    public void wakeup() {
        if (!executor.isExecutorThread(Thread.currentThread()) && blocking.getAndSet(false)) {
            Worker w = worker;
            if (w != null) {
                w.wakeup();
            } else {
                LockSupport.unpark(thread);   // the worker opens on the loop's thread only, so none opened since
            }
        }
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return RdmaIoHandle.class.isAssignableFrom(handleType);
    }

    /** The loop's worker; on the loop's thread, once a channel is registered. */
    Worker worker() {
        return worker;
    }

    /** The largest message the worker receives, and so the largest a channel sends. */
    int messageSize() {
        return options.messageSize();
    }

    /** The device address the worker connects from and listens on. */
    InetAddress address() {
        return address;
    }

    @Override
    public String toString() {
        return "RdmaIoHandler[" + (worker != null ? worker : address.getHostAddress()) + "]";
    }
}
