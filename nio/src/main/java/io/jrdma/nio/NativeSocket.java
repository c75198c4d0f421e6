package io.jrdma.nio;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One native socket (an rsocket or a kernel socket) and how many threads are using it. Its descriptor is closed
 * only once no thread reads, writes, waits on or polls it: closing an rsocket frees librdmacm's state for it, which
 * another thread's call must not find gone, and a closed descriptor's number may be reused at once.
 */
final class NativeSocket {
    private final Transport transport;
    private final int fd;
    private final int family;
    /** Under this socket's monitor. */
    private final List<Runnable> beforeClose = new ArrayList<>();
    /**
     * How many threads use the socket, and {@link #CLOSED} once {@link #close} was called: one word, so that a use
     * is taken and given back with one compare-and-set or add each, no monitor, on every read and write. A use is
     * taken only while the bit is clear, and the bit, once set, stays; so exactly one of {@link #close} (finding no
     * user) and the last {@link #release} (finding the bit) sees the word become {@link #CLOSED} with no user, and
     * closes the descriptor, after every call that held a use has returned.
     */
    private final AtomicInteger uses = new AtomicInteger();
    private static final int CLOSED = 1 << 31;

    NativeSocket(Transport transport, int fd, int family) {
        this.transport = transport;
        this.fd = fd;
        this.family = family;
    }

    Transport transport() {
        return transport;
    }

    int fd() {
        return fd;
    }

    /** {@code AF_INET} or {@code AF_INET6}. */
    int family() {
        return family;
    }

    /** Takes a use of the socket; false if it is closed. Each true must be followed by {@link #release}. */
    boolean acquire() {
        for (int u = uses.get(); (u & CLOSED) == 0; u = uses.get()) {
            if (uses.compareAndSet(u, u + 1)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes a use of the socket, as {@link #acquire} does, to be followed by {@link #release}.
     *
     * @throws ClosedChannelException if the socket is closed already
     */
    void acquireOpen() throws ClosedChannelException {
        if (!acquire()) {
            throw new ClosedChannelException();
        }
    }

    /** A call on the socket's descriptor. */
    interface Call<T> {
        T run(Transport transport, int fd) throws IOException;
    }

    /**
     * Runs {@code call} with a use of the socket taken ({@link #acquire}), so that a concurrent {@link #close} leaves
     * the descriptor open until it returns.
     *
     * @throws ClosedChannelException if the socket is closed already
     */
    <T> T use(Call<T> call) throws IOException {
        acquireOpen();
        try {
            return call.run(transport, fd);
        } finally {
            release();
        }
    }

    /** Gives a use back; the last one after {@link #close} closes the descriptor. */
    void release() {
        if (uses.decrementAndGet() == CLOSED) {
            try {
                closeDescriptor();
            } catch (IOException ignored) {
                // The channel was closed already: there is no caller left to tell.
            }
        }
    }

    /**
     * Runs {@code action} right before the descriptor is closed, when no thread uses the socket any more. The caller
     * must hold a use of the socket ({@link #acquire}), so that it is not closed yet.
     */
    synchronized void beforeClose(Runnable action) {
        beforeClose.add(action);
    }

    /** Drops an action of {@link #beforeClose} that is no longer needed. */
    synchronized void cancelBeforeClose(Runnable action) {
        beforeClose.remove(action);
    }

    private void closeDescriptor() throws IOException {
        List<Runnable> actions;
        synchronized (this) {
            actions = List.copyOf(beforeClose);
            beforeClose.clear();
        }
        actions.forEach(Runnable::run);
        transport.close(fd);
    }

    /** Closes the descriptor now, or when the last user releases it. */
    void close() throws IOException {
        int before = uses.getAndUpdate(u -> u | CLOSED);
        if (before == 0) {
            closeDescriptor();
        }
    }

    @Override
    public String toString() {
        return transport + " socket " + fd;
    }
}
