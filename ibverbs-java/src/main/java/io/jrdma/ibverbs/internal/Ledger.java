package io.jrdma.ibverbs.internal;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The open objects of one device context, each with where it was created: what a leak report lists. It holds
 * descriptions, never the objects, so that it can outlive them in a cleaner.
 */
public final class Ledger {
    private static final AtomicLong IDS = new AtomicLong();

    private final Map<Long, Entry> open = new ConcurrentHashMap<>();

    record Entry(String description, Throwable site) {
    }

    /** Records a new open object; returns its id for {@link #remove}. */
    long add(String description, Throwable site) {
        long id = IDS.incrementAndGet();
        open.put(id, new Entry(description, site));
        return id;
    }

    void remove(long id) {
        open.remove(id);
    }

    /** Every open object with its creation stack, one block each. */
    public String report() {
        StringBuilder b = new StringBuilder();
        open.values().forEach(e -> {
            StringWriter trace = new StringWriter();
            e.site().printStackTrace(new PrintWriter(trace));
            b.append("  ").append(e.description()).append(", ").append(trace);
        });
        return b.toString();
    }
}
