package io.jrdma.nio;

import java.io.IOException;
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
