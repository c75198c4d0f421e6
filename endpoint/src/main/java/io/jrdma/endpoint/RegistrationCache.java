package io.jrdma.endpoint;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Registrations of the application's own native memory with a worker's protection domain, so that operations can
 * send from and read into memory that did not come from the {@link BufferPool}: the first operation on a segment
 * registers it, later ones on it (or on any slice of it) find that registration, and the registration lasts until
 * the segment's arena closes.
 *
 * <p>The arena's close waits (up to 30 s) until no operation that uses the memory is in flight or queued on any of
 * the worker's endpoints, then deregisters it; only then does the arena free the memory. So an operation's memory
 * stays registered and allocated until its completion, whatever the application closes meanwhile. On the worker's
 * own thread (in a handler, say) the close progresses the worker while it waits; from another thread, the worker's
 * thread must be progressing for the wait to end early. Registrations give local access only: memory that peers may
 * read or write is the application's to register and advertise on purpose ({@link ProtectionDomain#register}).
 * Memory of an automatic arena stays registered, and reachable, until the worker closes.
 *
 * <p>From any thread.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=registrations}
 */
public final class RegistrationCache {
    private static final System.Logger LOG = System.getLogger(RegistrationCache.class.getName());
    private static final Duration ARENA_CLOSE_WAIT = Duration.ofSeconds(30);

    private final Worker worker;
    private final ProtectionDomain pd;
    /** Per arena, its registrations, newest first (an arena's memory is registered a few times at most); guarded by this. */
    private final Map<MemorySegment.Scope, List<MemoryRegion>> byArena = new HashMap<>();
    private boolean closed;

    RegistrationCache(Worker worker, ProtectionDomain pd) {
        this.worker = worker;
        this.pd = pd;
    }

    /**
     * The registration that covers {@code segment}, made now if none does. Operations take it with the segment's
     * offset in it: {@code segment.address() - region.address()}.
     *
     * @param segment native memory of {@code arena}'s
     * @param arena   the arena that allocated it; its close ends the registration
     * @return a region of the worker's protection domain that contains {@code segment}
     * @throws IllegalArgumentException if the segment is not native or not of {@code arena}
     * @throws IllegalStateException    if the arena or the worker is closed
     * @throws RdmaException            if the registration fails
     */
    @SuppressWarnings("restricted")   // the cleanup only: the segment stays NULL's, of no size
    public MemoryRegion regionOf(MemorySegment segment, Arena arena) throws RdmaException {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(arena, "arena");
        if (!segment.isNative()) {
            throw new IllegalArgumentException(segment + " is not native memory");
        }
        MemorySegment.Scope scope = arena.scope();
        if (!segment.scope().equals(scope)) {
            throw new IllegalArgumentException(segment + " is not of the arena given");
        }
        if (!scope.isAlive()) {
            throw new IllegalStateException("the arena of " + segment + " is closed");
        }
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException(worker + " is closed");
            }
            List<MemoryRegion> regions = byArena.computeIfAbsent(scope, s -> new ArrayList<>());
            for (MemoryRegion r : regions) {
                if (r.address() <= segment.address()
                        && segment.address() + segment.byteSize() <= r.address() + r.length()) {
                    return r;
                }
            }
            MemoryRegion region = pd.register(segment, arena, Access.LOCAL_WRITE, Access.MW_BIND);
            regions.addFirst(region);
            // Cleanups run last-added first: this one, before the region's own deregistration and the free.
            MemorySegment.NULL.reinterpret(arena, ignored -> arenaClosing(scope, region));
            return region;
        }
    }

    /** The arena is closing: the region leaves the cache, and its operations complete before it goes. */
    private void arenaClosing(MemorySegment.Scope scope, MemoryRegion region) {
        synchronized (this) {
            List<MemoryRegion> regions = byArena.get(scope);
            if (regions != null) {
                regions.remove(region);
                if (regions.isEmpty()) {
                    byArena.remove(scope);
                }
            }
            if (closed) {
                return;
            }
        }
        if (!worker.awaitUnused(region, ARENA_CLOSE_WAIT)) {
            LOG.log(System.Logger.Level.WARNING, "operations on " + region + " were still in flight "
                    + ARENA_CLOSE_WAIT.toSeconds() + " s after its arena began to close; deregistering it fails them");
        }
    }

    /** How many registrations the cache holds; for tests. */
    synchronized int size() {
        return byArena.values().stream().mapToInt(List::size).sum();
    }

    /** Deregisters everything, before the worker's protection domain goes; the worker's thread, at its close. */
    void close() {
        List<MemoryRegion> all = new ArrayList<>();
        synchronized (this) {
            closed = true;
            byArena.values().forEach(all::addAll);
            byArena.clear();
        }
        for (MemoryRegion r : all) {
            try {
                r.close();
            } catch (RdmaException e) {
                LOG.log(System.Logger.Level.WARNING, "could not deregister " + r, e);
            }
        }
    }
}
