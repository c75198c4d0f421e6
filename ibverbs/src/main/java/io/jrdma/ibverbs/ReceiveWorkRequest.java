package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_recv_wr;
import io.jrdma.ibverbs.internal.DataPath;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.ResourceGuard;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A reusable receive work request ({@code struct ibv_recv_wr} with its scatter/gather list): where an incoming SEND
 * lands. Written in place; posting it again after its completion reuses it.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=receive-request}
 *
 * <p>Not thread-safe: give each posting thread its own requests. Once {@code postReceive} returns the request may be
 * refilled; the buffer it names belongs to the device until its completion is polled.
 */
public final class ReceiveWorkRequest {
    private static final long WR_ID = ibv_recv_wr.wr_id$offset();
    private static final long NEXT = ibv_recv_wr.next$offset();
    private static final long SG_LIST = ibv_recv_wr.sg_list$offset();
    private static final long NUM_SGE = ibv_recv_wr.num_sge$offset();

    private final MemorySegment wr;
    private final MemorySegment badWr;
    /** {@code wr}'s scope, kept to check it one load nearer: a post checks every request's. */
    private final MemorySegment.Scope scope;
    private final ScatterGatherList sgl;
    /** Held while a post reads the request, if its arena can be closed: the close waits for the post. */
    private final ResourceGuard arenaUse;
    private ReceiveWorkRequest next;

    /**
     * A request with room for {@code maxSge} scatter/gather entries, freed when it becomes unreachable.
     *
     * @param maxSge the most scatter/gather entries it will carry
     * @throws IllegalArgumentException if {@code maxSge} is negative
     */
    public ReceiveWorkRequest(int maxSge) {
        this(maxSge, Arena.ofAuto(), false);
    }

    /**
     * A request with room for {@code maxSge} scatter/gather entries, in {@code arena}.
     *
     * @param maxSge the most scatter/gather entries it will carry
     * @param arena  where its native memory lives; closing the arena waits for a post that reads the request, and
     *               makes it unusable (later posts refuse it)
     * @throws IllegalArgumentException if {@code maxSge} is negative
     */
    public ReceiveWorkRequest(int maxSge, Arena arena) {
        this(maxSge, arena, true);
    }

    private ReceiveWorkRequest(int maxSge, Arena arena, boolean closeable) {
        this.wr = ibv_recv_wr.allocate(arena);
        this.arenaUse = closeable ? ResourceGuard.ofArena(arena, "a receive request's arena") : null;
        this.badWr = arena.allocate(ValueLayout.ADDRESS);
        this.scope = wr.scope();
        this.sgl = new ScatterGatherList(maxSge, arena);
        reset();
    }

    /**
     * Clears id, entries and chain.
     *
     * @return this request
     */
    public ReceiveWorkRequest reset() {
        wr.fill((byte) 0);
        wr.set(ValueLayout.ADDRESS, SG_LIST, sgl.segment());
        sgl.clear();
        next = null;
        return this;
    }

    /**
     * The {@code wr_id} its completion carries.
     *
     * @param id any value; the application's name for the request
     * @return this request
     */
    public ReceiveWorkRequest id(long id) {
        wr.set(ValueLayout.JAVA_LONG, WR_ID, id);
        return this;
    }

    /**
     * Appends {@code [offset, offset + length)} of {@code mr} (bounds checked); the region needs LOCAL_WRITE.
     *
     * @param mr     a region of the queue pair's protection domain, registered with {@link Access#LOCAL_WRITE}
     * @param offset the first byte, from the start of the region
     * @param length the number of bytes
     * @return this request
     * @throws IllegalArgumentException  if the region lacks LOCAL_WRITE or {@code length} is negative
     * @throws IndexOutOfBoundsException if the range is not inside the region
     * @throws IllegalStateException     if the list is full, or the region is closed
     */
    public ReceiveWorkRequest add(MemoryRegion mr, long offset, int length) {
        if (!mr.access().contains(Access.LOCAL_WRITE)) {
            throw new IllegalArgumentException("receive buffers need LOCAL_WRITE access: " + mr);
        }
        sgl.add(mr, offset, length);
        wr.set(ValueLayout.JAVA_INT, NUM_SGE, sgl.count());
        return this;
    }

    /**
     * Chains {@code next} after this request; {@code null} ends the chain.
     *
     * @param next the request to post after this one, or {@code null}
     * @return this request
     */
    public ReceiveWorkRequest next(ReceiveWorkRequest next) {
        this.next = next;
        wr.set(ValueLayout.ADDRESS, NEXT, next == null ? MemorySegment.NULL : next.wr);
        return this;
    }

    /**
     * The request chained after this one.
     *
     * @return the next request, or {@code null} at the end of the chain
     */
    public ReceiveWorkRequest next() {
        return next;
    }

    /**
     * Entries in the scatter/gather list.
     *
     * @return the number of entries added since the last {@link #reset()}
     */
    public int sgeCount() {
        return sgl.count();
    }

    /** When the provider fails a post without naming the request (e.g. rxe on a queue pair still in RESET). */
    static final String UNNAMED_FAILURE = "the device did not name the failing request: take the whole chain as "
            + "not posted (a queue pair in RESET takes no requests)";

    /**
     * Refuses the chain starting here unless every request is in a live arena, has at most {@code maxSge} entries
     * and regions of {@code pd} only, and the chain has at most {@code maxWr} requests.
     */
    void checkChain(int maxSge, int maxWr, ProtectionDomain pd) {
        int length = 0;
        for (ReceiveWorkRequest r = this; r != null; r = r.next) {
            if (++length > maxWr) {
                throw tooLong(maxWr);
            }
            if (!r.scope.isAlive()) {   // the provider would read freed memory
                throw closedArena();
            }
            r.sgl.check(pd);
            if (r.sgl.count() > maxSge) {
                throw r.tooManyEntries(maxSge);
            }
        }
    }

    /**
     * Posts the checked chain starting here to {@code queue} through the provider function {@code postFn}, holding
     * the requests' arenas open for the call; the caller holds the queue.
     *
     * @return the provider's answer, 0 when every request was posted
     */
    int postChain(MemorySegment postFn, long queue) {
        ReceiveWorkRequest lastHeld = null;
        try {
            // The provider reads every request of the chain: their arenas stay open until it has.
            for (ReceiveWorkRequest r = this; r != null; r = r.next) {
                if (r.arenaUse != null) {
                    r.arenaUse.enter();
                    lastHeld = r;
                }
            }
            return (int) DataPath.POST_RECV.invokeExact(postFn, queue, wr, badWr.address());
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        } finally {
            for (ReceiveWorkRequest r = this; lastHeld != null; r = r.next) {
                if (r.arenaUse != null) {
                    r.arenaUse.exit();
                }
                if (r == lastHeld) {
                    break;
                }
            }
        }
    }

    private static IllegalStateException closedArena() {
        return new IllegalStateException("a receive request of the chain is in a closed arena");
    }

    private static IllegalArgumentException tooLong(int maxWr) {
        return new IllegalArgumentException("a chain of more than " + maxWr
                + " requests (a cycle?) cannot fit the receive queue");
    }

    private IllegalArgumentException tooManyEntries(int maxSge) {
        return new IllegalArgumentException("receive request has " + sgl.count()
                + " scatter/gather entries; the queue takes " + maxSge);
    }

    /** The failure of {@code verb} posting the chain starting here, which returned {@code rc}. */
    RdmaException notPosted(String verb, int rc) {
        long bad = badWr.get(ValueLayout.ADDRESS, 0).address();
        int index = 0;
        ReceiveWorkRequest r = this;
        while (r != null && r.wr.address() != bad) {
            r = r.next;
            index++;
        }
        return Errno.exception(verb, Math.abs(rc), r == null
                ? UNNAMED_FAILURE : "request #" + index + " and those after it were not posted");
    }
}
