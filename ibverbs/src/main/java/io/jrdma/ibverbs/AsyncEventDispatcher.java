package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_async_event;
import io.jrdma.bindings.ibverbs.ibv_context;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.Fd;
import io.jrdma.ibverbs.internal.ResourceGuard;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The asynchronous events of one {@link Context}: reading and acknowledging them, the listeners and the reader thread
 * that delivers to them, and the objects of the context by native address, so that an event names the Java object.
 * Every native call counts itself in on the context's guard, and the context's destroy {@link #stop()}s the reader.
 */
final class AsyncEventDispatcher {
    private static final MethodHandle GET_ASYNC_EVENT = Errno.capturing(
            ibverbs_h.ibv_get_async_event$address(), ibverbs_h.ibv_get_async_event$descriptor());
    private static final System.Logger LOG = System.getLogger(Context.class.getName());

    private final Context context;
    private final ResourceGuard guard;
    private final MemorySegment ctx;
    /** The async event file descriptor, kept so that a wait never reads a closed context's struct. */
    private final int asyncFd;
    /** The queue pairs, completion queues and shared receive queues of the context. */
    private final ObjectsByAddress<Object> objects = new ObjectsByAddress<>();
    /** Who hears async events; {@link #reader} delivers to them. */
    private final List<Consumer<AsyncEvent>> listeners = new CopyOnWriteArrayList<>();
    private Thread reader;

    /** The events of {@code context}, whose {@code guard} guards {@code ctx}. */
    AsyncEventDispatcher(Context context, ResourceGuard guard, MemorySegment ctx) {
        this.context = context;
        this.guard = guard;
        this.ctx = ctx;
        // Non-blocking, so that a reader that lost the race for an event gets EAGAIN instead of hanging.
        this.asyncFd = ibv_context.async_fd(ctx);
        Fd.setNonBlocking(asyncFd);
    }

    /** See {@link Context#awaitAsyncEvent}. */
    AsyncEvent await(Duration timeout) throws RdmaException, InterruptedException {
        guard.checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment event = ibv_async_event.allocate(arena);
            MemorySegment state = Errno.allocateState(arena);
            AsyncEvent[] read = new AsyncEvent[1];
            if (!Fd.awaitEvent(asyncFd, timeout, "ibv_get_async_event", state,
                    () -> readAndAcknowledge(state, event, read))) {
                return null;
            }
            return read[0];
        }
    }

    /**
     * One non-blocking {@code ibv_get_async_event} and its acknowledgement, counted in like a data-path call: a close
     * on another thread waits for it, and once the device is closed it throws instead of touching it.
     */
    private int readAndAcknowledge(MemorySegment state, MemorySegment event, AsyncEvent[] read) throws Throwable {
        guard.enter();
        try {
            int rc = (int) GET_ASYNC_EVENT.invokeExact(state, ctx, event);
            if (rc == 0) {
                read[0] = toEvent(event);
                ibverbs_h.ibv_ack_async_event(event);
            }
            return rc;
        } finally {
            guard.exit();
        }
    }

    /** See {@link Context#onAsyncEvent}. */
    void addListener(Consumer<AsyncEvent> listener) {
        // Under the guard's lock, which close holds too: a reader is either started before close looks for it or
        // refused.
        synchronized (guard) {
            guard.checkOpen();
            if (listener == null) {
                throw new IllegalArgumentException("listener must not be null");
            }
            listeners.add(listener);
            if (reader == null) {
                reader = Thread.ofVirtual().name("jrdma-async-" + context.device().name()).start(this::deliver);
            }
        }
    }

    /** See {@link Context#removeAsyncEventListener}. */
    void removeListener(Consumer<AsyncEvent> listener) {
        listeners.remove(listener);
    }

    /** Stops the reader, if one was started; part of the context's destroy, under the guard's lock. */
    void stop() {
        Thread t = reader;
        if (t != null) {
            t.interrupt();
            try {
                t.join(Duration.ofSeconds(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void deliver() {
        while (!Thread.currentThread().isInterrupted() && !guard.isClosed()) {
            AsyncEvent e;
            try {
                e = await(Duration.ofMillis(200));
            } catch (InterruptedException | IllegalStateException closing) {
                return;
            } catch (RdmaException | RuntimeException failed) {
                LOG.log(System.Logger.Level.WARNING, "reading the async events of " + context, failed);
                continue;
            }
            for (Consumer<AsyncEvent> l : e == null ? List.<Consumer<AsyncEvent>>of() : listeners) {
                try {
                    l.accept(e);
                } catch (RuntimeException failed) {
                    LOG.log(System.Logger.Level.WARNING, "async event listener of " + context + " failed on " + e,
                            failed);
                }
            }
        }
    }

    private AsyncEvent toEvent(MemorySegment event) {
        AsyncEventType type = AsyncEventType.of(ibv_async_event.event_type(event));
        MemorySegment element = ibv_async_event.element(event);
        return switch (type.element()) {
            case QP -> new AsyncEvent(type, (QueuePair) objects.get(ibv_async_event.element.qp(element).address()),
                    null, null, 0);
            case CQ -> new AsyncEvent(type, null,
                    (CompletionQueue) objects.get(ibv_async_event.element.cq(element).address()), null, 0);
            case SRQ -> new AsyncEvent(type, null, null,
                    (SharedReceiveQueue) objects.get(ibv_async_event.element.srq(element).address()), 0);
            case PORT -> new AsyncEvent(type, null, null, null, ibv_async_event.element.port_num(element));
            case NONE -> new AsyncEvent(type, null, null, null, 0);
        };
    }

    /** Makes events naming {@code nativeObject} name {@code javaObject}. */
    void register(MemorySegment nativeObject, Object javaObject) {
        objects.put(nativeObject, javaObject);
    }

    /** Undoes {@link #register}; see {@link ObjectsByAddress#remove}. */
    void unregister(MemorySegment nativeObject, Object javaObject) {
        objects.remove(nativeObject, javaObject);
    }
}
