package io.jrdma.nio;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;

/**
 * One native socket (an rsocket or a kernel socket) and how many threads are using it. Its descriptor is closed
 * only once no thread reads, writes, waits on or polls it: closing an rsocket frees librdmacm's state for it, which
 * another thread's call must not find gone, and a closed descriptor's number may be reused at once.
 */
final class NativeSocket {
    private final Transport transport;
    private final int fd;
    private final int family;
    private final List<Runnable> beforeClose = new ArrayList<>();
    private int users;
    private boolean closed;

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
    synchronized boolean acquire() {
        if (closed) {
            return false;
        }
        users++;
        return true;
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
        boolean last;
        synchronized (this) {
            users--;
            last = closed && users == 0;
        }
        if (last) {
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
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (users > 0) {
                return;
            }
        }
        closeDescriptor();
    }

    @Override
    public String toString() {
        return transport + " socket " + fd;
    }
}
