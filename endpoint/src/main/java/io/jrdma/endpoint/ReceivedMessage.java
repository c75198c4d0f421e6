package io.jrdma.endpoint;

import io.jrdma.ibverbs.MemoryRegion;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A message an {@link Endpoint} received, borrowed from the worker's shared receive queue: its bytes are the first
 * {@link #length()} of {@link #segment()}, in place in the registered receive buffer, with no copy. {@link #release()}
 * gives the buffer back to the receive queue and the sender its credit; until then the buffer is the
 * application's, even past the worker's close (the receive memory is freed when the last message held in it is
 * released). One object per receive buffer, reused for every message that lands in it: the receive path
 * allocates nothing. An RDMA write with immediate arrives as a message of no bytes (the data went to the memory
 * the peer wrote), with {@link #isRemoteWrite()} true; it is released by the worker once the handler returns.
 * Its bytes lie in registered memory ({@link #region()}, {@link #offset()}), so an endpoint of the same worker can
 * send them on with no copy, the message held until that send completes.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=handler}
 */
public final class ReceivedMessage {
    private final Worker worker;
    private final int slot;
    private final MemorySegment buffer;
    private final MemoryRegion region;
    private final long offset;
    private static final int FREE = 0;
    private static final int HELD = 1;
    /** Held by the application past the worker's close: its release frees the slab once no other message is held. */
    private static final int ORPHANED = 2;
    private final AtomicInteger state = new AtomicInteger(FREE);
    /** A large message's pooled buffer, which its release gives back; null for the receive queue's buffers. */
    private Buffer large;
    Endpoint endpoint;
    private int length;
    private int immediate;
    private boolean hasImmediate;
    private boolean remoteWrite;

    /** Receive buffer {@code slot}: {@code buffer}, which lies at {@code offset} of {@code region}. */
    ReceivedMessage(Worker worker, int slot, MemorySegment buffer, MemoryRegion region, long offset) {
        this.worker = worker;
        this.slot = slot;
        this.buffer = buffer;
        this.region = region;
        this.offset = offset;
    }

    private ReceivedMessage(Worker worker, Buffer pooled) {
        this(worker, -1, pooled.segment(), pooled.region(), pooled.offset());
        large = pooled;
    }

    /** A large message, written into a pooled buffer (see Rendezvous). */
    static ReceivedMessage large(Worker worker, Endpoint from, Rendezvous.Incoming in) {
        ReceivedMessage m = new ReceivedMessage(worker, in.buffer);
        m.arrived(from, in.length, in.hasImmediate, in.immediate, false);
        return m;
    }

    /** {@code m}'s copy in {@code copy}, a pooled buffer, so that {@code m}'s receive buffer can go back at once. */
    static ReceivedMessage copyOf(ReceivedMessage m, Buffer copy) {
        ReceivedMessage c = new ReceivedMessage(m.worker, copy);
        MemorySegment.copy(m.buffer, 0, copy.segment(), 0, m.length);
        c.arrived(m.endpoint, m.length, m.hasImmediate, m.immediate, m.remoteWrite);
        return c;
    }

    void arrived(Endpoint from, int bytes, boolean withImmediate, int imm, boolean write) {
        endpoint = from;
        length = write ? 0 : bytes;
        hasImmediate = withImmediate;
        immediate = imm;
        remoteWrite = write;
        state.set(HELD);
    }

    private void checkHeld() {
        if (state.get() == FREE) {
            throw new IllegalStateException("the message was released; its buffer may hold another one");
        }
    }

    /**
     * {@return the receive buffer, all of it: the message is its first {@link #length()} bytes}
     *
     * @throws IllegalStateException if the message was released
     */
    public MemorySegment segment() {
        checkHeld();
        return buffer;
    }

    /**
     * {@return the registered region {@link #segment()} lies in, for sending the message on from where it lies} An
     * endpoint of the same worker can send from it (other workers' endpoints refuse it as memory of another
     * domain); the message must stay held until that send completes, as its buffer then takes the next message.
     *
     * @throws IllegalStateException if the message was released
     */
    public MemoryRegion region() {
        checkHeld();
        return region;
    }

    /**
     * {@return where {@link #segment()} starts in {@link #region()}}
     */
    public long offset() {
        return offset;
    }

    /**
     * {@return the message's length in bytes}
     */
    public int length() {
        return length;
    }

    /**
     * {@return whether the peer sent an immediate value with it}
     */
    public boolean hasImmediate() {
        return hasImmediate;
    }

    /**
     * {@return the immediate value, if {@link #hasImmediate()}; else 0}
     */
    public int immediate() {
        return hasImmediate ? immediate : 0;
    }

    /**
     * {@return whether this tells of an RDMA write with immediate rather than carrying a message}
     */
    public boolean isRemoteWrite() {
        return remoteWrite;
    }

    /**
     * {@return the endpoint it came on}
     */
    public Endpoint endpoint() {
        return endpoint;
    }

    /**
     * Gives the buffer back to the receive queue and the sender its credit. From any thread: off the worker's
     * thread it is handed to the worker.
     *
     * @throws IllegalStateException if the message was released already
     */
    public void release() {
        int was = state.getAndSet(FREE);
        if (was == FREE) {
            throw new IllegalStateException("the message was released already");
        }
        if (was == ORPHANED) {
            worker.slabReleased();
            return;
        }
        giveBack();
    }

    /**
     * Marks a receive buffer's message that the application still holds as outliving the closing worker.
     *
     * @return whether it was held
     */
    boolean orphan() {
        return state.compareAndSet(HELD, ORPHANED);
    }

    /** Releases a message the application never saw (no handler, or a closed endpoint). */
    void drop() {
        state.set(FREE);
        giveBack();
    }

    private void giveBack() {
        if (large != null) {
            endpoint.rendezvous.giveBack(large);   // the credit went back with the ring
        } else {
            worker.released(this);
        }
    }

    int slot() {
        return slot;
    }

    @Override
    public String toString() {
        return "ReceivedMessage[" + length + " B" + (hasImmediate ? ", immediate " + immediate : "")
                + (remoteWrite ? ", remote write" : "") + "]";
    }
}
