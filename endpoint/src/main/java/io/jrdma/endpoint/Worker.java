package io.jrdma.endpoint;

import io.jrdma.endpoint.internal.IdleSpin;
import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionChannel;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.DeviceAttributes;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.MemoryWindow;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.SharedReceiveQueue;
import io.jrdma.ibverbs.ThreadConfinement;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.rdmacm.CmEvent;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;
import io.jrdma.rdmacm.RemoteRegion;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A progress engine for {@link Endpoint}s, confined to one thread: on one RDMA device it holds one protection
 * domain, one completion queue for every endpoint's sends and receives, a shared receive queue with a registered
 * receive slab, the connection manager's event channel, a {@link BufferPool} and an eventfd that other threads
 * write to wake it. No thread per connection: the worker's thread runs everything, through one of
 * <ul>
 *   <li>{@link #progress()}, called by the application's own loop, which may block in {@link #await(Duration)};</li>
 *   <li>{@link #start}, which gives the worker a thread of its own that busy-polls for
 *   {@link WorkerOptions#spin()} after the last work and then blocks.</li>
 * </ul>
 * Other threads (virtual ones too) hand work to the worker through {@link #execute(Runnable)}, and the future
 * flavour of every operation does so by itself.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=worker}
 */
public final class Worker implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Worker.class.getName());
    /** Marks receive completions' work request ids; a send's id is its endpoint's index and queue slot. */
    private static final long RECEIVE = Long.MIN_VALUE;
    private static final int POLL_BATCH = 32;
    /** Busy progress calls between two readings of the clock, to see whether a look at the CM events is due. */
    private static final int CHECK_EVERY = 64;
    /**
     * The least time between two looks at the CM events and the timers while busy. A look is a system call
     * ({@code epoll_wait}); made every 64 polls it took about 3% of a ping-pong client's CPU on Soft-RoCE, and on a
     * fast machine it would come every few microseconds. A connection's events and the 1 ms timers can wait 200 µs.
     */
    private static final long CHECK_NANOS = 200_000;
    private static final long TIMER_NANOS = 1_000_000;
    private static final long IDLE_TIMER_NANOS = 50_000_000;
    /** How long a disconnected endpoint stays known to its late receive completions (see Endpoint.maybeRelease). */
    static final long DRAIN = 50_000_000;
    /** How long route resolution, and an accepted connection's wait for the peer's confirmation, may take. */
    private static final Duration CM_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private static final Duration IDLE_WAIT = Duration.ofMillis(100);
    private static final Duration CLOSE_TURN = Duration.ofMillis(10);
    /** The credit words and atomic results: aligned, so that the worker can read what the device wrote volatile. */
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();
    /**
     * Each endpoint's block in the words region: the credit word the peer writes (+0), the source of this side's
     * credit writes (+8), then the mailbox the peer writes large-message entries into (see Rendezvous).
     */
    static final int MAILBOX = 16;
    /** Per send-queue slot: an atomic's result or a mailbox entry on its way. */
    private static final int SCRATCH = Rendezvous.ENTRY;

    /** The vendor id Soft-RoCE (rdma_rxe) reports. */
    private static final int SOFT_ROCE_VENDOR = 0xffffff;
    private final WorkerOptions options;
    private final InetAddress address;
    private final Thread thread;
    /** Whether {@link #start} made the thread, which closes the worker when asked to. */
    private boolean ownThread;
    private final Arena arena;
    private final EventChannel events;
    /** CM events read but not yet handled (see {@link #nextCmEvent}). */
    private final ArrayDeque<CmEvent> cmEvents = new ArrayDeque<>();
    private final Context context;
    private final ProtectionDomain pd;
    private final CompletionChannel channel;
    private final CompletionQueue cq;
    private final SharedReceiveQueue srq;
    /** The receive slab: messages the application holds past the close keep its memory. */
    private final LeasedMemory slab;
    private final MemoryRegion receiveMemory;
    private final MemoryRegion words;
    private final MemoryRegion scratch;
    private final int blockSize;
    private final ReceivedMessage[] messages;
    private final BufferPool buffers;
    /**
     * Whether a window is bound only at the head of its endpoint's send queue (see {@link #bindsAtHead()}): on
     * Soft-RoCE.
     */
    private final boolean bindsAtHead;
    /** The scatter/gather entries of a send on this worker's queue pairs: a gather list's most pieces. */
    private final int gatherPieces;
    private final RegistrationCache registrations;
    /** Arenas closing on other threads, waiting until no operation uses their memory. */
    private final List<UnusedWait> unusedWaits = new ArrayList<>();
    private final WakeupPoll poll;
    /** Completions polled at each depth of progress(): a handler that closes an arena may progress inside one. */
    private final List<WorkCompletions> wcsByDepth = new ArrayList<>();
    /** Per depth, the next completion of its batch to dispatch and the batch's size. */
    private int[] batchNext = new int[1];
    private int[] batchSize = new int[1];
    private int depth;
    /** A {@link #drainCompletions()} is running. */
    private boolean draining;
    /** Completions of the endpoints' and the worker's own requests taken so far (receives not counted). */
    private long requestCompletions;
    private final SendWorkRequest wr;
    /** A large message's mailbox entry and ring, posted after {@link #wr} in one chain. */
    private final SendWorkRequest entryWr;
    private final SendWorkRequest ringWr;
    private final ReceiveWorkRequest rwr;
    /** One batch of reposts, chained: one post for every receive buffer released since the last poll. */
    private final ReceiveWorkRequest[] repostChain;
    /**
     * Receive buffers released since the last poll, and the endpoints whose messages they held (null: none, or a
     * message nobody holds credits for). Each slot is listed at most once: it comes back only after its repost.
     */
    private final int[] releasedSlots;
    private final Endpoint[] releasedBy;
    private int releasedCount;
    private final int slotsPerEndpoint;
    private final int creditThreshold;
    private final Endpoint[] endpoints;
    private final QpnMap byQpn = new QpnMap();
    private final int[] freeIndexes;
    private int freeIndexCount;
    private final Map<CmId, Object> ids = new IdentityHashMap<>();
    private final List<EndpointListener> listeners = new ArrayList<>();
    /**
     * Requests its listeners' handlers deferred that no worker answered yet, from any thread: rejected when this
     * worker closes, since their ids live on its channel until they are accepted.
     */
    final Set<ConnectRequest> deferred = ConcurrentHashMap.newKeySet();
    private final List<Endpoint> waitingForCredits = new ArrayList<>();
    /** Endpoints whose last completion left only unsignaled requests in flight (Endpoint.coverTail). */
    private final List<Endpoint> uncoveredTails = new ArrayList<>();
    private final ConcurrentLinkedQueue<Runnable> submissions = new ConcurrentLinkedQueue<>();
    private volatile boolean sleeping;
    /** {@link #arm()} said the application may wait on the descriptor; the next progress() takes what woke it. */
    private boolean armed;
    private volatile boolean closeRequested;
    private volatile boolean closed;
    private int sinceCheck;
    private long now = System.nanoTime();
    private long nextTimer;
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();

    private Worker(InetAddress address, WorkerOptions options) throws IOException {
        this.options = options;
        this.address = address;
        this.thread = Thread.currentThread();
        this.slotsPerEndpoint = options.sendDepth() + 1;
        this.creditThreshold = Math.max(1, options.credits() / 4);
        List<AutoCloseable> made = new ArrayList<>();
        try {
            arena = Arena.ofShared();
            made.add(arena);
            events = add(made, EventChannel.create());
            context = deviceOf(events, address);
            pd = add(made, context.allocateProtectionDomain());
            channel = add(made, context.createCompletionChannel());
            int slots = options.receiveSlots();
            DeviceAttributes device = context.queryDevice();
            bindsAtHead = device.vendorId() == SOFT_ROCE_VENDOR;
            int cqSize = fitted(options, device);
            cq = add(made, context.completionQueue(cqSize).channel(channel)
                    .confinement(ThreadConfinement.CONFINED).create());
            srq = add(made, pd.createSharedReceiveQueue(slots, 1));
            slab = add(made, LeasedMemory.register(pd, (long) slots * options.messageSize(), false,
                    Access.LOCAL_WRITE));
            receiveMemory = slab.region();
            blockSize = MAILBOX + options.credits() * Rendezvous.ENTRY;
            // No remote access of its own: each endpoint's block is registered again on its own, and its peer
            // writes it through a window over that region bound to the endpoint's queue pair, so that no peer
            // reaches another endpoint's credit word or mailbox (Soft-RoCE checks a window's writes against its
            // region's bounds, not the window's).
            words = add(made, pd.register(arena.allocate((long) options.maxEndpoints() * blockSize, 4096), arena,
                    Access.LOCAL_WRITE));
            scratch = add(made, pd.allocate((long) options.maxEndpoints() * slotsPerEndpoint * SCRATCH,
                    Access.LOCAL_WRITE));
            buffers = new BufferPool(pd, options.hugePages());
            made.add(buffers::close);
            registrations = new RegistrationCache(this, pd);
            poll = add(made, new WakeupPoll(channel.fd(), events.fileDescriptor()));
            wcsByDepth.add(new WorkCompletions(POLL_BATCH, arena));
            gatherPieces = Math.min(options.gatherPieces(), device.maxSge());
            wr = new SendWorkRequest(gatherPieces, arena);
            entryWr = new SendWorkRequest(1, arena);
            ringWr = new SendWorkRequest(1, arena);
            rwr = new ReceiveWorkRequest(1, arena);
            repostChain = new ReceiveWorkRequest[POLL_BATCH];
            for (int i = 0; i < POLL_BATCH; i++) {
                repostChain[i] = new ReceiveWorkRequest(1, arena);
            }
            releasedSlots = new int[slots];
            releasedBy = new Endpoint[slots];
            messages = new ReceivedMessage[slots];
            for (int i = 0; i < slots; i++) {
                long at = (long) i * options.messageSize();
                messages[i] = new ReceivedMessage(this, i, receiveMemory.segment().asSlice(at, options.messageSize()),
                        receiveMemory, at);
                repost(i);
            }
            endpoints = new Endpoint[options.maxEndpoints()];
            freeIndexes = new int[options.maxEndpoints()];
            for (int i = options.maxEndpoints() - 1; i >= 0; i--) {
                freeIndexes[freeIndexCount++] = i;
            }
            cq.requestNotification(false);
        } catch (IOException | RuntimeException e) {
            for (int i = made.size() - 1; i >= 0; i--) {
                try {
                    made.get(i).close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /**
     * The completion queue's size: every receive and every endpoint's every send slot, each of which can complete at
     * once. A smaller queue would overflow under full load and break every endpoint, so options the device cannot
     * hold are refused here, as are queues deeper than it allows.
     */
    private static int fitted(WorkerOptions options, DeviceAttributes device) {
        long sends = (long) options.maxEndpoints() * (options.sendDepth() + 1);
        long cqe = options.receiveSlots() + sends;
        if (cqe > device.maxCqe() || options.receiveSlots() > device.maxSrqWr()
                || options.sendDepth() + 1 > device.maxQpWr()) {
            throw new IllegalArgumentException("the device holds at most " + device.maxCqe() + " completions a queue, "
                    + device.maxSrqWr() + " shared receives and " + device.maxQpWr() + " sends a queue pair; these "
                    + "options need " + cqe + " completions (credits * maxEndpoints = " + options.receiveSlots()
                    + " receives, plus maxEndpoints * (sendDepth + 1) = " + sends + " sends): lower maxEndpoints, "
                    + "credits or sendDepth");
        }
        return (int) cqe;
    }

    private static <T extends AutoCloseable> T add(List<AutoCloseable> made, T resource) {
        made.add(resource);
        return resource;
    }

    /** Whether {@code id} is bound to the worker's device (an id bound to no device, e.g. on loopback, is not). */
    private boolean onThisDevice(CmId id) {
        try {
            return id.context() == context;
        } catch (IllegalStateException noDevice) {
            return false;
        }
    }

    /** The device context librdmacm uses for {@code address}: an id bound to it names it. */
    private static Context deviceOf(EventChannel events, InetAddress address) throws IOException {
        try (CmId probe = CmId.create(events, PortSpace.TCP)) {
            probe.bind(new InetSocketAddress(address, 0));
            return probe.context();
        } catch (IllegalStateException noDevice) {
            throw new IOException(address + " is not an address of an RDMA device", noDevice);
        }
    }

    /**
     * Opens a worker on the RDMA device that has {@code address}, confined to the calling thread, which then
     * drives it with {@link #progress()} and {@link #await(Duration)}.
     *
     * @param address an IP address of the device (the worker connects and listens from it)
     * @param options how the worker is set up
     * @return the worker, which the calling thread closes
     * @throws IOException if no RDMA device has the address, or a resource cannot be made (e.g. the locked-memory
     *                     limit is too low for the receive slab)
     * @throws IllegalArgumentException if the device's queues cannot hold what the options ask for (its completion
     *                     queue every receive and send slot, its shared receive queue every receive)
     */
    public static Worker open(InetAddress address, WorkerOptions options) throws IOException {
        return new Worker(address, options);
    }

    /**
     * Opens a worker on a platform thread of its own, which runs it until {@link #close()}: it busy-polls for
     * {@link WorkerOptions#spin()} after its last work, then blocks until a completion, a CM event, a wakeup or a
     * timer.
     *
     * @param address an IP address of the device
     * @param options how the worker is set up
     * @param name    the thread's name
     * @return the running worker
     * @throws IOException if the worker cannot be opened (see {@link #open})
     * @throws IllegalArgumentException if the device's queues cannot hold what the options ask for (see
     *                     {@link #open})
     * @throws InterruptedException if the calling thread is interrupted while the worker opens
     */
    public static Worker start(InetAddress address, WorkerOptions options, String name)
            throws IOException, InterruptedException {
        CompletableFuture<Worker> opened = new CompletableFuture<>();
        Thread.ofPlatform().name(name).daemon().start(() -> {
            Worker w;
            try {
                w = new Worker(address, options);
            } catch (IOException | RuntimeException e) {
                opened.completeExceptionally(e);
                return;
            }
            w.ownThread = true;
            opened.complete(w);
            w.run();
        });
        try {
            return opened.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw (RuntimeException) e.getCause();
        }
    }

    private void run() {
        IdleSpin spin = new IdleSpin(options.spin());
        try {
            while (!closeRequested) {
                int work = spin.spun() ? await(IDLE_WAIT) : progress();
                spin.ran(work > 0);
                if (work == 0) {
                    Thread.onSpinWait();
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "worker " + this + " stopped", e);
        } finally {
            try {
                closeNow();
            } catch (RdmaException | RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "closing worker " + this, e);
            }
        }
    }

    // ---- what users call ----------------------------------------------------------------------------------------

    /**
     * {@return the worker's protection domain: register memory for operations with it}
     */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * {@return the worker's pool of registered buffers}
     */
    public BufferPool buffers() {
        return buffers;
    }

    /**
     * {@return the registrations of the application's own memory with the worker's protection domain}
     */
    public RegistrationCache registrations() {
        return registrations;
    }

    /**
     * How many completions of requests (sends, writes, reads, atomics, window binds, credit updates) the worker has
     * taken from its completion queue; received messages are not counted. With many operations in flight it grows
     * slower than the operations complete, as only some requests are signaled: a measure of what polling costs.
     *
     * @return the count since the worker opened
     * @throws WrongThreadException off the worker's thread
     */
    public long requestCompletions() {
        checkThread();
        return requestCompletions;
    }

    /**
     * {@return the options the worker was opened with}
     */
    public WorkerOptions options() {
        return options;
    }

    /**
     * Connects to an {@link EndpointListener} at {@code server}, from any thread.
     *
     * @param server      the listener's address
     * @param handler     what the endpoint tells the application
     * @param privateData for the server's application (at most {@value Endpoint#MAX_CONNECT_DATA} bytes); null for
     *                    none
     * @param timeout     how long resolving, connecting and the server's answer may take together
     * @return completes with the open endpoint, or exceptionally: {@link ConnectionRejectedException} when the server
     *         rejected it, {@link EndpointException} when it could not be reached in time
     * @throws IllegalArgumentException if the private data is too long or the timeout not positive
     */
    public CompletableFuture<Endpoint> connect(InetSocketAddress server, EndpointHandler handler, byte[] privateData,
                                               Duration timeout) {
        byte[] data = Endpoint.privateData(privateData, Endpoint.MAX_CONNECT_DATA);
        if (!timeout.isPositive()) {
            throw new IllegalArgumentException("the connect timeout must be positive, not " + timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        CompletableFuture<Endpoint> result = new CompletableFuture<>();
        execute(() -> {
            try {
                CmId id = CmId.create(events, PortSpace.TCP);
                Endpoint ep;
                try {
                    ep = newEndpoint(id, handler);
                } catch (RuntimeException full) {
                    closeQuietly(id);
                    throw full;
                }
                ep.connectDeadline = deadline;
                ep.connected.whenComplete((e, t) -> {
                    if (t != null) {
                        result.completeExceptionally(t);
                    } else {
                        result.complete(e);
                    }
                });
                ep.connectData = data;
                ep.id.resolveAddress(new InetSocketAddress(address, 0), server, timeout);
            } catch (IOException | RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /**
     * Listens on {@code local} (port 0 picks one), from any thread; {@code handler} gets every connect request on the
     * worker's thread.
     *
     * @param local   an address of the worker's device
     * @param backlog connect requests the device queues before the worker takes them
     * @param handler accepts or rejects each request
     * @return completes with the listener, which the application closes, or exceptionally with the
     *         {@link RdmaException} of binding or listening (e.g. the address is in use) or an
     *         {@link IllegalArgumentException} if the address is not the worker's device's
     * @throws IllegalArgumentException if {@code backlog} is negative
     */
    public CompletableFuture<EndpointListener> listen(InetSocketAddress local, int backlog,
                                                      ConnectRequestHandler handler) {
        if (backlog < 0) {
            throw new IllegalArgumentException("backlog must be >= 0, not " + backlog);
        }
        CompletableFuture<EndpointListener> result = new CompletableFuture<>();
        execute(() -> {
            CmId id = null;
            try {
                id = CmId.create(events, PortSpace.TCP);
                id.bind(local);
                if (!onThisDevice(id)) {
                    throw new IllegalArgumentException(local + " is not an address of the worker's device");
                }
                id.listen(backlog);
                EndpointListener l = new EndpointListener(this, id, handler);
                ids.put(id, l);
                listeners.add(l);
                result.complete(l);
            } catch (RdmaException | RuntimeException e) {
                if (id != null) {
                    closeQuietly(id);
                }
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /**
     * Runs {@code task} on the worker's thread, in order with the other tasks, at its next {@link #progress()}; from
     * any thread. A task that throws is logged and the worker goes on.
     *
     * @param task what to run
     * @throws IllegalStateException if the worker is closed
     */
    public void execute(Runnable task) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        submissions.add(task);
        if (sleeping) {
            poll.wake();
        }
    }

    /**
     * {@link #execute} for the tasks that have nothing left to do once the worker is closed (a close, a release): a
     * worker that closes between the caller's look and the hand-over is not the caller's error.
     *
     * @return whether the task was taken
     */
    boolean executeUnlessClosed(Runnable task) {
        try {
            execute(task);
            return true;
        } catch (IllegalStateException closedMeanwhile) {
            return false;
        }
    }

    /**
     * Makes the worker's thread leave {@link #await} (or its own wait) at once; from any thread.
     */
    public void wakeup() {
        poll.wake();
    }

    /**
     * Does what is ready, without blocking: tasks from other threads, completions (running the handlers), and now
     * and then connection-manager events and timers (credit updates, keepalives). After {@link #arm()}, the first
     * call also takes what made {@link #fileDescriptor()} readable.
     *
     * @return how much was done (0: nothing was ready)
     * @throws RdmaException        if polling the completion queue fails
     * @throws WrongThreadException off the worker's thread
     */
    public int progress() throws RdmaException {
        checkThread();
        if (armed) {
            armed = false;
            sleeping = false;
            return poll() + checkEventsAndTimers(poll.await(0));
        }
        return poll();
    }

    private int poll() throws RdmaException {
        if (releasedCount > 0) {
            repostReleased();
        }
        while (!uncoveredTails.isEmpty()) {
            uncoveredTails.removeLast().coverTail();
        }
        int work = runTasks() + pollCompletions();
        if (!waitingForCredits.isEmpty()) {
            work += checkCredits();
        }
        if (++sinceCheck >= CHECK_EVERY) {
            sinceCheck = 0;
            if (System.nanoTime() - now >= CHECK_NANOS) {
                work += checkEventsAndTimers(poll.await(0));
            }
        }
        return work;
    }

    /**
     * Takes one batch of completions and dispatches them. A handler may progress the worker itself: the polls around
     * it took completions it has not dispatched yet, which come before the newer ones, in order.
     */
    private int pollCompletions() throws RdmaException {
        int d = depth;
        if (d > 0) {
            dispatchPolled();
        }
        if (d == wcsByDepth.size()) {
            wcsByDepth.add(new WorkCompletions(POLL_BATCH, arena));
            batchNext = Arrays.copyOf(batchNext, d + 1);
            batchSize = Arrays.copyOf(batchSize, d + 1);
        }
        WorkCompletions wcs = wcsByDepth.get(d);
        depth++;
        try {
            int n = cq.poll(wcs);
            batchSize[d] = n;
            batchNext[d] = 0;
            while (batchNext[d] < batchSize[d]) {
                dispatch(wcs, batchNext[d]++);
            }
            return n;
        } finally {
            depth--;
        }
    }

    /**
     * Polls the completion queue until it is empty, handing over what it holds. The connection manager's events are
     * taken in one batch after one batch of completions, and handling them (an accept, a release) makes system calls
     * that take milliseconds in a loaded guest: completions that came before a peer's {@code DISCONNECTED} may still
     * wait in the queue when the endpoint would be given up. They are handed over first.
     *
     * @return {@code false} if a drain is already running (this one was reached from a completion it dispatched):
     *         the caller decides on a later look
     */
    boolean drainCompletions() {
        if (draining) {
            return false;
        }
        draining = true;
        try {
            int n;
            do {
                n = pollCompletions();
            } while (n >= POLL_BATCH);
        } catch (RdmaException e) {
            // The completion queue failed: nothing more can come through it.
            LOG.log(System.Logger.Level.ERROR, "polling the completion queue of " + this, e);
        } finally {
            draining = false;
        }
        return true;
    }

    /**
     * Blocks until there may be work (a completion, a CM event, a task or wakeup from another thread, a timer) or
     * {@code timeout} passes, then does it like {@link #progress()}.
     *
     * @param timeout the longest wait
     * @return how much was done
     * @throws RdmaException        if a wait or poll fails
     * @throws WrongThreadException off the worker's thread
     */
    public int await(Duration timeout) throws RdmaException {
        int work = progress();
        if (work > 0) {
            return work;
        }
        work = fallAsleep();
        if (!sleeping) {
            return work;
        }
        int ready;
        try {
            long millis = Math.min(timeout.toMillis(), Math.max(0, timerDue() / 1_000_000));
            ready = poll.await((int) millis);
        } finally {
            sleeping = false;
        }
        return poll() + checkEventsAndTimers(ready);
    }

    /**
     * The descriptor that puts the worker into the application's own event loop (epoll, poll, or another
     * library's selector): it becomes readable when there is work for {@link #progress()}, once {@link #arm()}
     * said the worker may sleep. It stays the worker's: never close it. From any thread.
     *
     * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=arm}
     *
     * @return the file descriptor (an epoll instance over the worker's completion, connection-manager, wakeup and
     *         timer descriptors)
     */
    public int fileDescriptor() {
        return poll.fd();
    }

    /**
     * Prepares the worker for the application's wait on {@link #fileDescriptor()}: asks for completion events,
     * lets other threads' {@link #execute} and {@link #wakeup} write the descriptor, and sets its timer for the
     * worker's next timer (credit updates, keepalives, timeouts). Then the application may block until the
     * descriptor is readable, and calls {@link #progress()}.
     *
     * @return {@code true} if the application may wait now; {@code false} if work came meanwhile (it was done,
     *         or is ready for the next {@link #progress()}): call {@code progress()} and do not wait
     * @throws RdmaException        if arming fails
     * @throws WrongThreadException off the worker's thread
     * @throws IllegalStateException if the worker is closed
     */
    public boolean arm() throws RdmaException {
        checkThread();
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        if (progress() > 0) {
            return false;
        }
        checkEventsAndTimers(0);
        if (fallAsleep() > 0 || !sleeping) {
            return false;
        }
        poll.timer(timerDue());
        armed = true;
        return true;
    }

    /**
     * Arms the completion queue and tells other threads that the worker sleeps, then looks once more: a completion
     * or task that came before the arm would not wake anyone.
     *
     * @return the work found on that look; if any, or tasks wait, the worker is awake again
     */
    private int fallAsleep() throws RdmaException {
        cq.requestNotification(false);
        sleeping = true;
        int work = poll();
        if (work > 0 || !submissions.isEmpty()) {
            sleeping = false;
        }
        return work;
    }

    /** Nanoseconds until the worker's timers want it: at most 1 ms while an endpoint waits for credits. */
    private long timerDue() {
        long untilTimer = nextTimer - System.nanoTime();
        return waitingForCredits.isEmpty() ? untilTimer : Math.min(untilTimer, TIMER_NANOS);
    }

    // ---- the data path ------------------------------------------------------------------------------------------

    private int runTasks() {
        int n = 0;
        Runnable task;
        while (n < 1024 && (task = submissions.poll()) != null) {
            n++;
            try {
                task.run();
            } catch (Throwable e) {
                LOG.log(System.Logger.Level.WARNING, "a task on " + this + " failed", e);
            }
        }
        return n;
    }

    private void dispatch(WorkCompletions wcs, int i) {
        long id = wcs.id(i);
        WcStatus status = wcs.status(i);
        if (id < 0) {
            received(wcs, (int) id, status, i);
            return;
        }
        requestCompletions++;
        Endpoint ep = endpoints[(int) (id >>> 32)];
        if (ep != null) {
            ep.completed((int) id, status);
        }
    }

    /** The previous value of the word an atomic of {@code ep}'s in {@code slot} changed, once it completed. */
    long atomicResult(Endpoint ep, int slot) {
        // The device writes it in the host's order.
        return scratch.segment().get(ValueLayout.JAVA_LONG, scratchOffset(ep, slot));
    }

    private void received(WorkCompletions wcs, int slot, WcStatus status, int i) {
        ReceivedMessage m = messages[slot];
        Endpoint ep = byQpn.get(wcs.qpNumber(i));
        if (ep == null || status != WcStatus.SUCCESS) {
            repost(slot);
            if (ep != null && status != WcStatus.WR_FLUSH_ERR) {
                ep.fail(new EndpointException("a receive on " + ep + " failed: " + status.description(), status,
                        null));
            }
            return;
        }
        ep.lastActivity = now;
        if (ep.unreleased >= options.credits()) {
            // The peer sent beyond its credits: it would take other endpoints' buffers. Nothing reaches the
            // application, the buffer goes back, and the endpoint breaks.
            repost(slot);
            ep.fail(new EndpointException(ep + ": the peer sent more messages than it had credits for"));
            return;
        }
        if (ep.state == Endpoint.State.CONNECTING && ep.peerHandshake != null) {
            // A message proves the connection: the peer's queue pair sends only after it took the accept. The
            // connection manager's ESTABLISHED may come later (it waits for the peer's RTU).
            ep.open(ep.peerHandshake, options.readDepth());
        }
        ep.unreleased++;
        boolean write = wcs.opcode(i) == WcOpcode.RECV_RDMA_WITH_IMM;
        int bytes = wcs.byteLength(i);
        boolean immediate = wcs.hasImmediate(i);
        m.arrived(ep, bytes, immediate, wcs.immediate(i), write);
        if (ep.state == Endpoint.State.CLOSED) {
            m.drop();
            return;
        }
        if (!write && bytes == 0 && !immediate) {
            // A ring: the peer wrote a mailbox entry, which is read before the ring's buffer (and with it the
            // credit that lets the peer write over the entry) goes back.
            ep.rendezvous.rang(mailbox(ep), options.credits());
            m.drop();
            ep.drainBacklog();
            return;
        }
        if (ep.rendezvous.holding()) {
            ep.rendezvous.hold(m);
            return;
        }
        deliver(ep, m);
    }

    /** Hands a message to the application's handler; a remote write's notice is released after it. */
    void deliver(Endpoint ep, ReceivedMessage m) {
        try {
            ep.handler.onMessage(ep, m);
        } catch (Throwable e) {
            LOG.log(System.Logger.Level.WARNING, "the message handler of " + ep + " failed", e);
        }
        if (m.isRemoteWrite() && m.endpoint == ep) {
            try {
                m.release();
            } catch (IllegalStateException alreadyReleased) {
                // The handler released it itself.
            }
        }
    }

    /** A message was released (by the application or the worker): its buffer goes back to the receive queue. */
    void released(ReceivedMessage m) {
        if (closed) {
            return;   // the slab is gone with the worker
        }
        if (!inThread()) {
            executeUnlessClosed(() -> released(m));   // if not taken, the slab is gone with the worker
            return;
        }
        if (closed) {
            return;
        }
        Endpoint ep = m.endpoint;
        m.endpoint = null;
        releasedSlots[releasedCount] = m.slot();
        releasedBy[releasedCount++] = ep;
    }

    /**
     * Gives the buffers released since the last poll back to the receive queue, in chains of one post each, then
     * reports the credits they free. A release is deferred to the next poll so that a handler that releases its
     * message and answers it posts the answer first: the repost and a credit update are off the round trip.
     */
    private void repostReleased() {
        int done = 0;
        // A failing credit update breaks its endpoint, whose handler may release more: they are taken in turn.
        while (done < releasedCount) {
            int end = releasedCount;
            for (int i = done; i < end; i += POLL_BATCH) {
                int n = Math.min(POLL_BATCH, end - i);
                for (int j = 0; j < n; j++) {
                    receiveInto(repostChain[j], releasedSlots[i + j]).next(j + 1 < n ? repostChain[j + 1] : null);
                }
                postReceives(repostChain[0]);
            }
            for (int i = done; i < end; i++) {
                Endpoint ep = releasedBy[i];
                releasedBy[i] = null;
                if (ep != null && ep.state != Endpoint.State.CLOSED) {
                    try {
                        ep.messageReleased(creditThreshold);
                    } catch (RdmaException e) {
                        ep.fail(e);
                    }
                }
            }
            done = end;
        }
        releasedCount = 0;
    }

    /**
     * Lets the messages the application still holds keep the receive slab's memory once the close deregisters it: a
     * Netty buffer over one may be written by another transport through its raw address after this worker closed.
     */
    private void orphanHeldMessages() {
        for (ReceivedMessage m : messages) {
            // The hold comes first, so that a release racing the marking never lets go of a hold not yet taken; the
            // worker's own hold is still there, so it is always taken and giving it back never frees the slab.
            slab.hold();
            if (!m.orphan()) {
                slab.letGo();
            }
        }
    }

    /** A message held past the close was released: the last one frees the receive slab. */
    void slabReleased() {
        slab.letGo();
    }

    private void repost(int slot) {
        postReceives(receiveInto(rwr, slot));
    }

    /** {@code request}, reset to receive into buffer {@code slot} of the slab. */
    private ReceiveWorkRequest receiveInto(ReceiveWorkRequest request, int slot) {
        return request.reset().id(RECEIVE | slot).add(receiveMemory, (long) slot * options.messageSize(),
                options.messageSize());
    }

    private void postReceives(ReceiveWorkRequest chain) {
        try {
            srq.postReceive(chain);
        } catch (RdmaException e) {
            // The receive queue holds every buffer at most once, so it cannot overflow; a failure means the device
            // is gone, which the endpoints hear of through their own completions.
            LOG.log(System.Logger.Level.ERROR, "reposting receive buffers on " + this, e);
        }
    }

    void post(Endpoint ep, int slot, SendOpcode opcode, MemoryRegion region, long offset, int length,
              RemoteRegion remote, long remoteOffset, long a, long b, int imm, boolean signaled)
            throws RdmaException {
        wr.reset().id(((long) ep.index << 32) | slot).opcode(opcode).signaled(signaled);
        if (opcode == SendOpcode.ATOMIC_CMP_AND_SWP || opcode == SendOpcode.ATOMIC_FETCH_AND_ADD) {
            wr.add(scratch, scratchOffset(ep, slot), 8)
                    .atomic(remote.address() + remoteOffset, remote.remoteKey(), a, b);
        } else {
            if (length > 0) {
                wr.add(region, offset, length);
            }
            if (remote != null) {
                wr.rdma(remote.address() + remoteOffset, remote.remoteKey());
            }
            if (opcode == SendOpcode.SEND_WITH_IMM || opcode == SendOpcode.RDMA_WRITE_WITH_IMM) {
                wr.immediate(imm);
            }
            if (length > 0 && length <= ep.qp.capabilities().maxInlineData() && opcode != SendOpcode.RDMA_READ) {
                wr.inline(true);
            }
        }
        ep.qp.postSend(wr);
    }

    private long scratchOffset(Endpoint ep, int slot) {
        return ((long) ep.index * slotsPerEndpoint + slot) * SCRATCH;
    }

    /** Where a mailbox entry of {@code ep}'s is written from, until its write completes. */
    MemorySegment scratch(Endpoint ep, int slot) {
        return scratch.segment().asSlice(scratchOffset(ep, slot), SCRATCH);
    }

    /**
     * Whether a window must be bound only when its endpoint has nothing else in its send queue. Soft-RoCE executes a
     * bind (a local operation) as soon as its requester reaches it, but leaves it in the queue until the requests
     * before it are acknowledged; when one of those is retransmitted, the requester rewinds to it and executes
     * everything after it again, the bind included, which then fails ({@code MW_BIND_ERR}: the window's key already
     * moved) and breaks the endpoint. A bind at the head of the queue is retired at once. Other devices bind in order
     * without this.
     */
    boolean bindsAtHead() {
        return bindsAtHead;
    }

    /**
     * Posts the bind of {@code window} over a large message's buffer: the peer may write exactly it, through this
     * queue pair.
     */
    void postBind(Endpoint ep, int slot, MemoryWindow window, int rkey, MemoryRegion region, long offset, int length)
            throws RdmaException {
        ep.qp.postSend(wr.reset().id(((long) ep.index << 32) | slot).signaled(true)
                .bindWindow(window, rkey, region, offset, length, Access.REMOTE_WRITE));
    }

    /**
     * Prepares, as the head of the next {@link #postRing} chain, the write of a large message into the peer's window,
     * from {@code length} bytes of {@code region} at {@code offset} or from the pieces of {@code gather}.
     */
    void prepareWrite(Endpoint ep, int slot, MemoryRegion region, GatherList gather, long offset, int length,
                      RemoteRegion target) {
        wr.reset().id(((long) ep.index << 32) | slot).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                .rdma(target.address(), target.remoteKey());
        if (gather != null) {
            addPieces(gather);
        } else {
            wr.add(region, offset, length);
        }
    }

    /**
     * Posts the send of a gather list's pieces (with {@code imm} if {@code opcode} carries one), inline if they are
     * short enough: the device then copies them at the post, as for one piece.
     */
    void post(Endpoint ep, int slot, SendOpcode opcode, GatherList gather, int imm, boolean signaled)
            throws RdmaException {
        wr.reset().id(((long) ep.index << 32) | slot).opcode(opcode).signaled(signaled);
        addPieces(gather);
        if (opcode == SendOpcode.SEND_WITH_IMM) {
            wr.immediate(imm);
        }
        if (gather.length() <= ep.qp.capabilities().maxInlineData()) {
            wr.inline(true);
        }
        ep.qp.postSend(wr);
    }

    private void addPieces(GatherList gather) {
        for (int i = 0; i < gather.size(); i++) {
            wr.add(gather.regions[i], gather.offsets[i], gather.lengths[i]);
        }
    }

    /**
     * {@return the most pieces a {@link GatherList} sent through this worker's endpoints may have: its options'
     * {@link WorkerOptions#gatherPieces()}, or fewer if the device gathers fewer in one request}
     */
    public int maxGatherPieces() {
        return gatherPieces;
    }

    /**
     * Posts a mailbox entry (from {@link #scratch}) and its ring in one chain, after the request just prepared
     * ({@link #prepareWrite}) if {@code chained}: the queue pair runs them in order, so the
     * ring arrives after what it announces.
     */
    void postRing(Endpoint ep, boolean chained, int entrySlot, int ringSlot, long mailbox) throws RdmaException {
        entryWr.reset().id(((long) ep.index << 32) | entrySlot).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                .add(scratch, scratchOffset(ep, entrySlot), Rendezvous.ENTRY).rdma(mailbox, ep.peerWordKey());
        if (Rendezvous.ENTRY <= ep.qp.capabilities().maxInlineData()) {
            entryWr.inline(true);
        }
        ringWr.reset().id(((long) ep.index << 32) | ringSlot).opcode(SendOpcode.SEND).signaled(true);
        entryWr.next(ringWr);
        ep.qp.postSend(chained ? wr.next(entryWr) : entryWr);
    }

    void postInvalidate(Endpoint ep, int slot, int rkey) throws RdmaException {
        ep.qp.postSend(wr.reset().id(((long) ep.index << 32) | slot).signaled(true).localInvalidate(rkey));
    }

    /** The mailbox the peer of {@code ep} writes its entries into. */
    MemorySegment mailbox(Endpoint ep) {
        return words.segment().asSlice((long) ep.index * blockSize + MAILBOX, (long) options.credits()
                * Rendezvous.ENTRY);
    }

    void postCredits(Endpoint ep, int slot, long released, long peerAddress, int peerKey) throws RdmaException {
        long source = (long) ep.index * blockSize + 8;
        WORD.set(words.segment(), source, released);
        wr.reset().id(((long) ep.index << 32) | slot).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                .add(words, source, 8).rdma(peerAddress, peerKey);
        ep.qp.postSend(wr);
    }

    /** How many of its messages the peer of endpoint {@code index} says it released (it RDMA-writes the count). */
    long peerReleased(int index) {
        return (long) WORD.getVolatile(words.segment(), (long) index * blockSize);
    }

    /**
     * Makes {@code ep} go on once the peer granted it {@code needed} credits, or fewer if another of its requests
     * waits for fewer: an endpoint whose large message needs two is not woken on every look while it has one.
     */
    void waitForCredits(Endpoint ep, int needed) {
        if (ep.creditsWanted == 0) {
            waitingForCredits.add(ep);
            ep.creditsWanted = needed;
        } else {
            ep.creditsWanted = Math.min(ep.creditsWanted, needed);
        }
    }

    /**
     * Looks at {@code ep}'s unsignaled requests at the next poll, after the application had its chance to post: in a
     * pipeline (a loop that posts between polls, a handler that posts on completion) its next request is signaled
     * and completes them, and the credit update that would complete them at once was one more write per refill.
     */
    void coverLater(Endpoint ep) {
        uncoveredTails.add(ep);
    }

    /** Endpoints that waited for credits go on if the peer has written some. */
    private int checkCredits() {
        int work = 0;
        for (int i = waitingForCredits.size() - 1; i >= 0; i--) {
            Endpoint ep = waitingForCredits.get(i);
            if (ep.credits() >= ep.creditsWanted || ep.state == Endpoint.State.CLOSED) {
                waitingForCredits.remove(i);
                ep.creditsWanted = 0;
                ep.drainBacklog();
                work++;
            }
        }
        return work;
    }

    int creditThreshold() {
        return creditThreshold;
    }

    long now() {
        return now;
    }

    // ---- connection management ----------------------------------------------------------------------------------

    /**
     * Takes the CM events and the completion channel's event if {@code ready} (from {@link WakeupPoll#await}) says
     * they are there, and runs the timers when due. Reading a channel allocates, so it is only read when readable.
     */
    private int checkEventsAndTimers(int ready) throws RdmaException {
        int work = 0;
        try {
            if ((ready & 1 << WakeupPoll.COMPLETIONS) != 0) {
                // Acknowledges the event that woke the worker, so that the descriptor is quiet until the next arm.
                channel.await(Duration.ZERO);
            }
            CmEvent e;
            while (((ready & 1 << WakeupPoll.CM_EVENTS) != 0 || !cmEvents.isEmpty()) && (e = nextCmEvent()) != null) {
                work++;
                cmEvent(e);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        now = System.nanoTime();
        if (now - nextTimer >= 0) {
            nextTimer = now + (timers() ? TIMER_NANOS : IDLE_TIMER_NANOS);
        }
        return work;
    }

    /**
     * Credit updates a release left below the threshold, and keepalives of idle endpoints.
     *
     * @return whether an endpoint still has credits to report (its update waits for a queue slot)
     */
    private boolean timers() {
        boolean pending = checkUnusedWaits();
        long keepalive = options.keepalive().toNanos();
        for (Endpoint ep : endpoints) {
            if (ep != null && ep.state == Endpoint.State.CONNECTING && now - ep.connectDeadline > 0) {
                ep.fail(new EndpointException(ep + " was not connected in time"));
            }
            if (ep != null && ep.state == Endpoint.State.DISCONNECTED) {
                ep.maybeRelease();
                pending = true;
            }
            if (ep == null || ep.state == Endpoint.State.CONNECTING || ep.state == Endpoint.State.CLOSED) {
                continue;
            }
            if (ep.peerGone()) {
                ep.checkPeerGone();
                pending = true;
            }
            try {
                if (ep.creditsToReport()) {
                    ep.reportCredits();
                } else if (keepalive > 0 && now - ep.lastActivity >= keepalive) {
                    ep.lastActivity = now;
                    ep.keepalive();
                }
                pending |= ep.creditsToReport();
            } catch (RdmaException | RuntimeException e) {
                ep.fail(e);
            }
        }
        return pending;
    }

    /**
     * The oldest CM event, after reading every event the channel holds. Reading a connect response is what confirms
     * the connection to the peer (librdmacm moves the queue pair to RTS and sends the RTU as it hands the event over),
     * and the events ahead of it can take long to handle (a queue pair for each route resolved in a burst of connects,
     * the application's request handlers): read only in turn, the response waited behind them for longer than the
     * accepting side waits for its confirmation, and the connection was cut off.
     */
    private CmEvent nextCmEvent() throws RdmaException, InterruptedException {
        CmEvent e;
        while ((e = events.poll(Duration.ZERO)) != null) {
            cmEvents.add(e);
        }
        return cmEvents.poll();
    }

    private void cmEvent(CmEvent e) {
        if (e.type() == CmEventType.CONNECT_REQUEST) {
            Object l = e.listenId() == null ? null : ids.get(e.listenId());
            if (l instanceof EndpointListener listener) {
                connectRequest(listener, e);
            } else {
                closeQuietly(e.id());
            }
            return;
        }
        if (!(ids.get(e.id()) instanceof Endpoint ep)) {
            return;
        }
        try {
            switch (e.type()) {
                case ADDR_RESOLVED -> {
                    if (!onThisDevice(ep.id)) {
                        ep.abortNow(new EndpointException(e.id().peerAddress()
                                + " is reached through another device than the worker's"));
                    } else {
                        ep.id.resolveRoute(CM_TIMEOUT);
                    }
                }
                case ROUTE_RESOLVED -> {
                    createQueuePair(ep);
                    Handshake mine = handshake(ep, ep.connectData);
                    ep.id.connect(ConnectionParameters.defaults()
                            .withResources(options.readDepth(), options.readDepth())
                            .withRetryCount(options.retryCount()).withRnrRetryCount(0)
                            .withPrivateData(mine.encode()));
                }
                case ESTABLISHED -> {
                    if (ep.state != Endpoint.State.CONNECTING) {
                        return;   // opened by its first message, or already given up
                    }
                    Handshake peer = ep.peerHandshake != null ? ep.peerHandshake : Handshake.decode(e.privateData());
                    if (peer == null) {
                        ep.abortNow(new ConnectionRejectedException(ep.id.peerAddress()
                                + " is not a jrdma endpoint (no handshake in its accept)", new byte[0]));
                    } else {
                        ep.open(peer, options.readDepth());
                    }
                }
                case REJECTED -> ep.abortNow(new ConnectionRejectedException(ep.id.peerAddress() + " rejected the "
                        + "connection (" + e.rejectReason() + ")", Handshake.decodeReject(e.privateData())));
                case DISCONNECTED -> ep.peerDisconnected();
                case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, DEVICE_REMOVAL -> ep.fail(
                        new EndpointException(ep + ": " + e.type() + " (status " + e.status() + ")"));
                default -> { }
            }
        } catch (RdmaException | RuntimeException failure) {
            ep.fail(failure);
        }
    }

    private void connectRequest(EndpointListener listener, CmEvent e) {
        Handshake peer = Handshake.decode(e.privateData());
        if (peer == null) {
            reject(e.id(), Handshake.encodeReject("not a jrdma endpoint".getBytes(StandardCharsets.US_ASCII)));
            return;
        }
        ConnectRequest request = new ConnectRequest(this, e, peer);
        try {
            listener.handler.onConnectRequest(request);
        } catch (Throwable failure) {
            // The application's code: whatever it throws, the worker goes on and the request is answered.
            LOG.log(System.Logger.Level.WARNING, "the connect request handler of " + listener + " failed", failure);
        }
        if (request.unanswered()) {
            reject(e.id(), Handshake.encodeReject(new byte[0]));
        }
    }

    Endpoint accept(CmEvent e, Handshake peer, EndpointHandler handler, byte[] data) throws RdmaException {
        CmId id = e.id();
        if (!onThisDevice(id)) {
            reject(id, Handshake.encodeReject(new byte[0]));
            throw new IllegalStateException("the request came through another device than the worker's");
        }
        Endpoint ep;
        try {
            ep = newEndpoint(id, handler);
        } catch (RuntimeException full) {
            reject(id, Handshake.encodeReject(new byte[0]));
            throw full;
        }
        try {
            ep.connectDeadline = System.nanoTime() + CM_TIMEOUT.toNanos();
            createQueuePair(ep);
            ep.peerHandshake = peer;
            ConnectionParameters offered = e.connection();
            id.accept(ConnectionParameters.defaults()
                    .withResources(Math.min(options.readDepth(), offered.initiatorDepth()),
                            Math.min(options.readDepth(), offered.responderResources()))
                    .withRnrRetryCount(0).withPrivateData(handshake(ep, data).encode()));
        } catch (RdmaException | RuntimeException failure) {
            ep.abortNow(failure);
            throw failure;
        }
        return ep;
    }

    void reject(CmId id, byte[] data) {
        try {
            id.reject(data);
        } catch (RdmaException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "rejecting " + id, e);
        }
        closeQuietly(id);
    }

    /** An endpoint over {@code id}, which it owns from now on; if none can be made, the caller keeps the id. */
    private Endpoint newEndpoint(CmId id, EndpointHandler handler) {
        if (freeIndexCount == 0) {
            throw new IllegalStateException(this + " holds " + options.maxEndpoints() + " endpoints, as many as "
                    + "its options allow");
        }
        int index = freeIndexes[--freeIndexCount];
        words.segment().asSlice((long) index * blockSize, blockSize).fill((byte) 0);
        VarHandle.fullFence();
        Endpoint ep = new Endpoint(this, index, id, handler, slotsPerEndpoint);
        endpoints[index] = ep;
        ids.put(id, ep);
        return ep;
    }

    private void createQueuePair(Endpoint ep) throws RdmaException {
        ep.id.setAckTimeout(options.ackTimeout());
        ep.qp = ep.id.createQueuePair(pd.queuePair(QpType.RC).completionQueue(cq).sharedReceiveQueue(srq)
                .capacity(slotsPerEndpoint, 1).sge(gatherPieces, 1).maxInlineData(64)
                .confinement(ThreadConfinement.CONFINED));
        // The accepting side's queue pair receives from the accept on, before the connection manager says the
        // connection is established.
        byQpn.put(ep.qp.qpNumber(), ep);
        ep.wordsRegion = pd.register(words.segment().asSlice((long) ep.index * blockSize, blockSize), arena,
                Access.LOCAL_WRITE, Access.MW_BIND);
        ep.wordsWindow = pd.allocateMemoryWindow(MemoryWindow.Type.TYPE_2);
        ep.wordsKey = ep.wordsWindow.nextRemoteKey();
    }

    /**
     * Binds {@code ep}'s window over its block of the words under the key its handshake gave, and rings the peer, in
     * one chain: the peer writes the block only after the ring, so never before the bind.
     */
    void postReady(Endpoint ep, int bindSlot, int ringSlot) throws RdmaException {
        ringWr.reset().id(((long) ep.index << 32) | ringSlot).opcode(SendOpcode.SEND).signaled(true);
        ep.qp.postSend(wr.reset().id(((long) ep.index << 32) | bindSlot).signaled(true)
                .bindWindow(ep.wordsWindow, ep.wordsKey, ep.wordsRegion, 0, blockSize, Access.REMOTE_WRITE)
                .next(ringWr));
    }

    private Handshake handshake(Endpoint ep, byte[] application) {
        return new Handshake(options.credits(), options.readDepth(), options.messageSize(), ep.wordsKey,
                ep.wordsRegion.address(), application);
    }

    /** The endpoint is disconnected and nothing of it is in flight: its queue pair and id go. */
    void releaseEndpoint(Endpoint ep) {
        // Windows first: Soft-RoCE holds the queue pair for each window still bound to it, and destroying the queue
        // pair before them waits 50 s for those references (the worker's thread with it) and then warns.
        ep.rendezvous.close();
        if (ep.wordsWindow != null) {
            closeQuietly(ep.wordsWindow);
        }
        if (ep.wordsRegion != null) {
            closeQuietly(ep.wordsRegion);   // after its window, which Soft-RoCE counts against it
        }
        if (ep.qp != null) {
            byQpn.remove(ep.qp.qpNumber());
            closeQuietly(ep.qp);
        }
        ids.remove(ep.id);
        closeQuietly(ep.id);
        endpoints[ep.index] = null;
        freeIndexes[freeIndexCount++] = ep.index;
    }

    void closeListener(EndpointListener l) {
        ids.remove(l.id);
        listeners.remove(l);
        try {
            l.closeNow();
        } catch (RdmaException e) {
            LOG.log(System.Logger.Level.WARNING, "closing " + l, e);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.log(System.Logger.Level.DEBUG, "closing " + c, e);
        }
    }

    // ---- memory that an arena's close takes away -------------------------------------------------------------

    /** An arena's close on another thread, waiting for the operations that use {@code region}. */
    private record UnusedWait(MemoryRegion region, CompletableFuture<Void> unused) {
    }

    /**
     * Waits until no operation of any endpoint's, in flight or queued, uses {@code region}, or {@code limit}
     * passes. On the worker's thread it progresses the worker meanwhile (a handler may close an arena); from
     * another thread the worker's thread looks at every timer turn.
     *
     * @return whether it became unused (a closed worker uses nothing)
     */
    boolean awaitUnused(MemoryRegion region, Duration limit) {
        if (inThread()) {
            long deadline = System.nanoTime() + limit.toNanos();
            try {
                dispatchPolled();
                while (!closed && inUse(region)) {
                    if (System.nanoTime() - deadline > 0) {
                        return false;
                    }
                    await(CLOSE_TURN);
                }
            } catch (RdmaException e) {
                LOG.log(System.Logger.Level.WARNING, "progressing " + this + " while an arena closed", e);
                return false;
            }
            return true;
        }
        CompletableFuture<Void> unused = new CompletableFuture<>();
        if (!executeUnlessClosed(() -> {
            unusedWaits.add(new UnusedWait(region, unused));
            checkUnusedWaits();
        })) {
            return true;
        }
        try {
            unused.get(limit.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Dispatches what the progress calls this one runs inside have polled and not dispatched yet: the operations
     * whose completions they hold are over, and a wait for them would wait for nothing.
     */
    private void dispatchPolled() {
        for (int d = 0; d < depth; d++) {
            while (batchNext[d] < batchSize[d]) {
                dispatch(wcsByDepth.get(d), batchNext[d]++);
            }
        }
    }

    /** Ends the waits whose region no operation uses any more; whether some still wait. */
    private boolean checkUnusedWaits() {
        if (unusedWaits.isEmpty()) {
            return false;   // the timers' usual case, without the predicate's allocation
        }
        unusedWaits.removeIf(w -> {
            if (inUse(w.region)) {
                return false;
            }
            w.unused.complete(null);
            return true;
        });
        return !unusedWaits.isEmpty();
    }

    private boolean inUse(MemoryRegion region) {
        for (Endpoint ep : endpoints) {
            if (ep != null && ep.uses(region)) {
                return true;
            }
        }
        return false;
    }

    /** The connection manager's channel, to which an id accepted here must move. */
    EventChannel events() {
        return events;
    }

    // ---- threads and close --------------------------------------------------------------------------------------

    boolean inThread() {
        return Thread.currentThread() == thread;
    }

    void checkThread() {
        if (Thread.currentThread() != thread) {
            throw new WrongThreadException(this + " belongs to " + thread.getName() + ", not "
                    + Thread.currentThread().getName());
        }
    }

    /**
     * Closes the worker: every endpoint is aborted (its operations fail), listeners close, and once the endpoints'
     * queues are flushed (or after 5 s) every resource is released. On the worker's thread it does so at once; from
     * another thread it asks a {@link #start started} worker's thread to and waits for it. A second call does
     * nothing.
     *
     * @throws RdmaException        if releasing a resource fails
     * @throws WrongThreadException from another thread than the one that {@link #open opened} the worker
     */
    @Override
    public void close() throws RdmaException {
        if (inThread()) {
            closeNow();
            return;
        }
        if (!ownThread) {
            checkThread();
        }
        closeRequested = true;
        poll.wake();
        terminated.join();
    }

    private void closeNow() throws RdmaException {
        if (closed) {
            return;
        }
        for (EndpointListener l : List.copyOf(listeners)) {
            closeListener(l);
        }
        List.copyOf(deferred).forEach(ConnectRequest::rejectUnanswered);
        for (Endpoint ep : endpoints) {
            if (ep != null) {
                ep.abortNow(new EndpointException(ep + ": its worker closed"));
            }
        }
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        while (hasEndpoints() && System.nanoTime() - deadline < 0) {
            await(CLOSE_TURN);
        }
        closed = true;
        for (Endpoint ep : endpoints) {
            if (ep != null) {
                releaseEndpoint(ep);
            }
        }
        RdmaException first = null;
        orphanHeldMessages();
        for (AutoCloseable c : new AutoCloseable[] {srq, cq, channel, slab, words, scratch}) {
            try {
                c.close();
            } catch (Exception e) {
                first = first == null && e instanceof RdmaException r ? r : first;
            }
        }
        try {
            buffers.close();
        } catch (RdmaException e) {
            first = first == null ? e : first;
        }
        registrations.close();
        unusedWaits.forEach(w -> w.unused.complete(null));
        unusedWaits.clear();
        closeQuietly(pd);
        closeQuietly(events);
        poll.close();
        arena.close();
        terminated.complete(null);
        Runnable task;
        while ((task = submissions.poll()) != null) {
            LOG.log(System.Logger.Level.DEBUG, "dropped a task given to closed " + this + ": " + task);
        }
        if (first != null) {
            throw first;
        }
    }

    private boolean hasEndpoints() {
        for (Endpoint ep : endpoints) {
            if (ep != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the worker has nothing under way: no endpoint (connecting, open or closing), no listener, no connect
     * request, no task handed to it. A loop that drives the worker can close it then without cutting anything off
     * (an event loop that is about to give up its thread, say).
     *
     * @return whether closing the worker now would end nothing but the worker
     * @throws WrongThreadException off the worker's thread
     */
    public boolean isIdle() {
        checkThread();
        return ids.isEmpty() && !hasEndpoints() && listeners.isEmpty() && deferred.isEmpty() && submissions.isEmpty();
    }

    /**
     * {@return whether the worker is closed}
     */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "Worker[" + address.getHostAddress() + " on " + context.device().name() + "]";
    }
}
