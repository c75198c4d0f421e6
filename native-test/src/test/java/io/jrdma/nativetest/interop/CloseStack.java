package io.jrdma.nativetest.interop;

import io.jrdma.tool.Resources;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a peer opened, closed last first however the exchange ended: children before their parents, and a failure to
 * close one does not leave the others open.
 */
final class CloseStack implements AutoCloseable {
    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    /** A peer's exchange: what it opens goes on {@code r}, and each of its waits ends by {@code deadline}. */
    @FunctionalInterface
    interface Exchange {
        String run(CloseStack r, Deadline deadline) throws Exception;
    }

    /** Runs {@code exchange} within {@code timeout}, closing all it opened however it ends; returns its summary. */
    static String within(Duration timeout, Exchange exchange) throws Exception {
        Deadline deadline = Deadline.in(timeout);
        try (CloseStack r = new CloseStack()) {
            return exchange.run(r, deadline);
        }
    }

    /** Takes {@code resource} to close with the others; returns it. */
    <T extends AutoCloseable> T add(T resource) {
        opened.push(resource);
        return resource;
    }

    @Override
    public void close() throws Exception {
        AutoCloseable[] lastFirst = opened.toArray(new AutoCloseable[0]);
        opened.clear();
        Resources.closeAll(lastFirst);
    }
}
