package io.jrdma.rdmacm;

import io.jrdma.ibverbs.RdmaException;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Listens for {@link RdmaConnection}s, socket-like: bind to a local RDMA address, then {@link #accept} each client.
 * Closing it while clients connect hangs nothing and loses nothing: requests not yet accepted are rejected, and
 * connections already accepted are unaffected.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.ConnectionSnippets region=listener}
 *
 * <p>where {@code serve} might share a region for the client to read:
 * {@snippet class=io.jrdma.rdmacm.snippets.ConnectionSnippets region=serve}
 */
public final class RdmaListener implements AutoCloseable {
    private static final Duration SLICE = Duration.ofMillis(100);
    private static final Duration ESTABLISH_TIMEOUT = Duration.ofSeconds(10);

    private final ConnectionOptions options;
    private final EventChannel events;
    private final CmId id;
    private final InetSocketAddress local;
    private final ReentrantLock accepting = new ReentrantLock();
    private volatile boolean closed;

    private RdmaListener(EventChannel events, CmId id, ConnectionOptions options) {
        this.events = events;
        this.id = id;
        this.options = options;
        this.local = id.localAddress();
    }

    /**
     * Listens on {@code address} (port 0: an ephemeral one, see {@link #localAddress()}); accepted connections use
     * {@code options}.
     *
     * @param address a local address of an RDMA device (the wildcard address listens on all of them)
     * @param options how accepted connections are set up
     * @return the listener
     * @throws RdmaException if binding or listening fails, e.g. {@code EADDRINUSE}, or an address of no RDMA
     *     device
     */
    public static RdmaListener bind(InetSocketAddress address, ConnectionOptions options) throws RdmaException {
        EventChannel events = EventChannel.create();
        CmId id = null;
        try {
            id = CmId.create(events, PortSpace.TCP);
            id.setReuseAddress(true);
            id.bind(address);
            id.listen(128);
            return new RdmaListener(events, id, options);
        } catch (RdmaException | RuntimeException e) {
            try {
                if (id != null) {
                    id.close();
                }
                events.close();
            } catch (RdmaException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * The address and port it listens on.
     *
     * @return the bound address, with the port the system chose if 0 was asked
     */
    public InetSocketAddress localAddress() {
        return local;
    }

    /**
     * The next client's connection, set up and established, or null if none came within {@code timeout}. A client
     * whose connection could not be completed is skipped (it sees the error), and so is one that gave up before its
     * request was served; the wait goes on. Threads may accept at once; they take turns.
     *
     * @param timeout how long to wait
     * @return the established connection, which the caller closes, or {@code null}
     * @throws RdmaException         if setting up an accepted connection fails on this side, its client still there
     * @throws InterruptedException  if the waiting thread is interrupted
     * @throws IllegalStateException if the listener is closed, also while waiting
     */
    public RdmaConnection accept(Duration timeout) throws RdmaException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (!accepting.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return null;
        }
        try {
            while (true) {
                if (closed) {
                    throw new IllegalStateException(this + " is closed");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                CmEvent e = events.next(id, Duration.ofNanos(Math.min(left, SLICE.toNanos())));
                if (e == null || e.type() != CmEventType.CONNECT_REQUEST) {
                    continue;
                }
                if (closed) {
                    refuse(e);
                    continue;
                }
                try {
                    return RdmaConnection.accept(e, options, ESTABLISH_TIMEOUT);
                } catch (CmEventException failed) {
                    // The client went away or failed while connecting: it has its own error; serve the next.
                    System.getLogger(RdmaListener.class.getName()).log(System.Logger.Level.DEBUG,
                            "a client's connection did not complete", failed);
                }
            }
        } finally {
            accepting.unlock();
        }
    }

    private static void refuse(CmEvent request) {
        try {
            request.id().reject(null);
        } catch (RdmaException ignored) {
            // The client will time out instead of hearing the reject.
        }
        try {
            request.id().close();
        } catch (RdmaException ignored) {
            // Nothing more can be done for an id the kernel no longer has.
        }
    }

    /**
     * Stops listening: no new connection is accepted, clients still waiting are rejected, and a concurrent
     * {@link #accept} ends with {@link IllegalStateException}. Established connections stay open.
     */
    @Override
    public void close() throws RdmaException {
        if (closed) {
            return;
        }
        closed = true;
        accepting.lock();
        try {
            if (id.isClosed()) {
                return;
            }
            id.close();
            // Requests that came in before the id went: refuse them, so their clients hear it at once.
            try {
                for (CmEvent e = events.poll(Duration.ZERO); e != null; e = events.poll(Duration.ZERO)) {
                    if (e.type() == CmEventType.CONNECT_REQUEST) {
                        refuse(e);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            events.close();
        } finally {
            accepting.unlock();
        }
    }

    @Override
    public String toString() {
        return "RdmaListener[" + local + (closed ? ", closed]" : "]");
    }
}
