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

    /** {@code release}: what must still be freed if the object leaks, after its device is closed (or null). */
    record Entry(String description, Throwable site, Runnable release) {
    }

    /** Records a new open object; returns its id for {@link #remove}. */
    long add(String description, Throwable site, Runnable release) {
        long id = IDS.incrementAndGet();
        open.put(id, new Entry(description, site, release));
        return id;
    }

    /**
     * Runs the releases of the leaked objects: for a context, the memory of owned regions, only safe once the device
     * is closed (it can no longer touch that memory); for an event channel, its ids, before the channel goes.
     */
    public void releaseLeaked() {
        open.values().forEach(e -> {
            if (e.release() != null) {
                e.release().run();
            }
        });
        open.clear();
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
