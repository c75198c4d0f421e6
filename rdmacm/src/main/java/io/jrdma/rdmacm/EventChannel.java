package io.jrdma.rdmacm;

import io.jrdma.bindings.rdmacm.rdma_cm_event;
import io.jrdma.bindings.rdmacm.rdma_cm_id;
import io.jrdma.bindings.rdmacm.rdma_cma_h;
import io.jrdma.bindings.rdmacm.rdma_event_channel;
import io.jrdma.bindings.rdmacm.rdma_ud_param;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.Fd;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A connection-manager event channel ({@code struct rdma_event_channel}): where the events of its ids arrive.
 * Waits use poll(2) on its file descriptor with a timeout, are interruptible and fine on virtual threads. Each event
 * is copied into a {@link CmEvent} and acknowledged at once, so none is leaked or acknowledged twice. A channel or
 * id dropped without {@link #close()} is reported when it becomes unreachable (a warning naming it, with where it
 * was created) and released, a channel after its ids.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=event-channel}
 */
@SuppressWarnings("restricted")
public final class EventChannel implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(EventChannel.class.getName());
    private static final MethodHandle CREATE = Cm.capturing(rdma_cma_h.rdma_create_event_channel$address(),
            rdma_cma_h.rdma_create_event_channel$descriptor());
    private static final MethodHandle GET_EVENT = Cm.capturing(rdma_cma_h.rdma_get_cm_event$address(),
            rdma_cma_h.rdma_get_cm_event$descriptor());
    /** How long one waiter reads before letting others on the same channel look for their events. */
    private static final Duration TURN = Duration.ofMillis(50);

    final ResourceGuard guard;
    private final MemorySegment channel;
    private final int fd;
    private final ReentrantLock reading = new ReentrantLock();
    /** Events read while looking for another id's, in arrival order; guarded by {@link #reading}. */
    private final ArrayDeque<CmEvent> backlog = new ArrayDeque<>();
    private volatile Thread loop;
    /** Set under {@link #reading} when the native channel is gone, so no reader can touch it afterwards. */
    private boolean destroyed;

    private EventChannel(MemorySegment channel) {
        this.channel = channel.reinterpret(rdma_event_channel.sizeof());
        this.fd = rdma_event_channel.fd(this.channel);
        // Non-blocking, so that a reader that lost the race for an event gets EAGAIN instead of hanging.
        Fd.setNonBlocking(fd);
        MemorySegment leaked = this.channel;
        // A leaked channel is destroyed after its leaked ids (they are its children): destroying one tells the kernel
        // through the channel's file.
        this.guard = new ResourceGuard(this, ResourceGuard.Lifecycle.of(this::destroy,
                () -> () -> rdma_cma_h.rdma_destroy_event_channel(leaked)));
        guard.watchForLeaks();
    }

    /**
     * Creates an event channel ({@code rdma_create_event_channel}).
     *
     * @return the new channel, a root: close it after its ids
     * @throws RdmaException if {@code rdma_create_event_channel} fails, e.g. when {@code /dev/infiniband/rdma_cm} is
     *     missing (no {@code rdma_ucm} kernel module)
     */
    public static EventChannel create() throws RdmaException {
        return new EventChannel(Verbs.pointer("rdma_create_event_channel", CREATE));
    }

    /**
     * The channel's file descriptor, readable when an event is waiting: for your own poll/epoll loop.
     *
     * @return the descriptor, non-blocking; the channel owns it: do not close it
     * @throws IllegalStateException if the channel is closed
     */
    public int fileDescriptor() {
        guard.checkOpen();
        return fd;
    }

    /**
     * The next event of any of this channel's ids, or null if none comes within {@code timeout} ({@code null}:
     * wait forever).
     *
     * @param timeout how long to wait; {@code null} waits forever
     * @return the event, already acknowledged, or {@code null}
     * @throws RdmaException         if {@code rdma_get_cm_event} fails
     * @throws InterruptedException  if the waiting thread is interrupted
     * @throws IllegalStateException if the channel is closed, also while waiting
     */
    public CmEvent poll(Duration timeout) throws RdmaException, InterruptedException {
        return next(null, timeout);
    }

    /**
     * Runs {@code handler} for every event of this channel on a new daemon thread, until the channel closes or the
     * handler throws. Do not also {@link #poll} a channel that has an event loop.
     *
     * @param handler called on the loop's thread, one event at a time
     * @return the loop's thread
     * @throws IllegalStateException if the channel is closed or already has an event loop
     */
    public Thread startEventLoop(Consumer<CmEvent> handler) {
        // Under the guard's lock, which close holds too: a loop is either started before close looks for it or
        // refused.
        synchronized (guard) {
            guard.checkOpen();
            if (loop != null) {
                throw new IllegalStateException(this + " already has an event loop");
            }
            loop = Thread.ofPlatform().daemon().name("jrdma-cm-events-" + fd).start(() -> {
                try {
                    while (!guard.isClosed()) {
                        CmEvent e = poll(TURN);
                        if (e != null) {
                            handler.accept(e);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RdmaException | IllegalStateException e) {
                    if (!guard.isClosed()) {
                        LOG.log(System.Logger.Level.ERROR,
                                "event loop of " + this + " stopped", e);
                    }
                }
            });
            return loop;
        }
    }

    /**
     * The next event about {@code id} (as its id, or as the listening id of a connect request), or any event when
     * {@code id} is null; events of other ids read meanwhile are kept, in order, for their own waiters.
     */
    CmEvent next(CmId id, Duration timeout) throws RdmaException, InterruptedException {
        long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        while (true) {
            // No event comes for a closed id: its waiter would wait out its timeout, or forever.
            if (id != null && id.isClosed()) {
                throw new IllegalStateException(id + " was closed while a thread waited for its events");
            }
            if (!reading.tryLock(TURN.toMillis(), TimeUnit.MILLISECONDS)) {
                if (System.nanoTime() - deadline >= 0) {
                    return null;
                }
                continue;
            }
            try {
                if (destroyed) {
                    throw new IllegalStateException(this + " is closed");
                }
                CmEvent kept = takeKept(id);
                if (kept != null) {
                    return kept;
                }
                long left = deadline - System.nanoTime();
                // A zero timeout still reads what is there: an event loop polls without waiting.
                CmEvent e = read(Duration.ofNanos(Math.max(0, Math.min(left, TURN.toNanos()))));
                if (e != null) {
                    if (matches(e, id)) {
                        return e;
                    }
                    backlog.add(e);
                } else if (left <= 0) {
                    return null;
                }
            } finally {
                reading.unlock();
            }
        }
    }

    private CmEvent takeKept(CmId id) {
        for (Iterator<CmEvent> it = backlog.iterator(); it.hasNext(); ) {
            CmEvent e = it.next();
            if (matches(e, id)) {
                it.remove();
                return e;
            }
        }
        return null;
    }

    /**
     * Moves the events kept here for {@code id} (read while another id was waited for) to {@code to}, ahead of what
     * {@code to} reads next: they are older than any event the migration moved natively.
     */
    void handOver(CmId id, EventChannel to) {
        ArrayDeque<CmEvent> moving = new ArrayDeque<>();
        reading.lock();
        try {
            for (Iterator<CmEvent> it = backlog.iterator(); it.hasNext(); ) {
                CmEvent e = it.next();
                if (e.id() == id) {
                    it.remove();
                    moving.add(e);
                }
            }
        } finally {
            reading.unlock();
        }
        if (moving.isEmpty()) {
            return;
        }
        to.reading.lock();
        try {
            moving.descendingIterator().forEachRemaining(to.backlog::addFirst);
        } finally {
            to.reading.unlock();
        }
    }

    private static boolean matches(CmEvent e, CmId id) {
        return id == null || e.id() == id || e.listenId() == id;
    }

    /** Reads, copies and acknowledges one event; null if none came within {@code timeout}. */
    private CmEvent read(Duration timeout) throws RdmaException, InterruptedException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Errno.allocateState(arena);
            MemorySegment slot = arena.allocate(ValueLayout.ADDRESS);
            if (!Fd.awaitEvent(fd, timeout, "rdma_get_cm_event", state,
                    () -> (int) GET_EVENT.invokeExact(state, channel, slot))) {
                return null;
            }
            MemorySegment ev = slot.get(ValueLayout.ADDRESS, 0).reinterpret(rdma_cm_event.sizeof());
            try {
                return copy(ev);
            } finally {
                rdma_cma_h.rdma_ack_cm_event(ev);
            }
        }
    }

    private CmEvent copy(MemorySegment ev) {
        CmEventType type = CmEventType.of(rdma_cm_event.event(ev));
        int status = rdma_cm_event.status(ev);
        MemorySegment idPtr = rdma_cm_event.id(ev).reinterpret(rdma_cm_id.sizeof());
        MemorySegment listenPtr = rdma_cm_event.listen_id(ev);
        CmId listen = listenPtr.equals(MemorySegment.NULL) ? null : CmId.known(listenPtr);
        MemorySegment param = rdma_cm_event.param(ev);
        boolean datagram = type == CmEventType.MULTICAST_JOIN || type == CmEventType.MULTICAST_ERROR
                || ((rdma_cm_id.ps(idPtr) == rdma_cma_h.RDMA_PS_UDP() || rdma_cm_id.ps(idPtr) == rdma_cma_h.RDMA_PS_IPOIB())
                && carriesParameters(type));
        ConnectionParameters connection = !datagram && carriesParameters(type)
                ? ConnectionParameters.fromNative(rdma_cm_event.param.conn(param)) : null;
        UdParameters ud = datagram ? datagramOf(rdma_cm_event.param.ud(param)) : null;
        // Adopted last: a request's new id must not be left behind by a failure to read the rest.
        CmId id = type == CmEventType.CONNECT_REQUEST ? CmId.adoptRequest(idPtr, this) : CmId.known(idPtr);
        return new CmEvent(type, status, id, listen, connection, ud);
    }

    private static boolean carriesParameters(CmEventType type) {
        return switch (type) {
            case CONNECT_REQUEST, CONNECT_RESPONSE, ESTABLISHED, REJECTED, CONNECT_ERROR, UNREACHABLE, DISCONNECTED,
                 MULTICAST_JOIN, MULTICAST_ERROR -> true;
            default -> false;
        };
    }

    private static UdParameters datagramOf(MemorySegment ud) {
        return new UdParameters(rdma_ud_param.qp_num(ud),
                rdma_ud_param.qkey(ud),
                ConnectionParameters.copy(rdma_ud_param.private_data(ud),
                        Byte.toUnsignedInt(rdma_ud_param.private_data_len(ud))),
                rdma_ud_param.ah_attr(ud).toArray(ValueLayout.JAVA_BYTE));
    }

    MemorySegment segment() {
        guard.checkOpen();
        return channel;
    }

    private void destroy() {
        Thread t = loop;
        if (t != null && t != Thread.currentThread()) {
            t.interrupt();
            try {
                t.join(Duration.ofSeconds(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        reading.lock();
        try {
            destroyed = true;
            rdma_cma_h.rdma_destroy_event_channel(channel);
        } finally {
            reading.unlock();
        }
    }

    /** {@return whether {@link #close()} has completed} */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /**
     * Releases the native object. A second call does nothing.
     *
     * @throws IllegalStateException if objects created from this one are still open (nothing is closed then)
     * @throws RdmaException         if the native destroy verb fails (it stays open)
     * @throws WrongThreadException  if it is confined to another thread (it stays open)
     */
    @Override
    public void close() throws RdmaException {
        guard.close();
    }

    @Override
    public String toString() {
        return "EventChannel[fd " + fd + (guard.isClosed() ? ", closed]" : "]");
    }
}
