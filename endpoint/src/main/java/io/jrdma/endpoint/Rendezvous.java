package io.jrdma.endpoint;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.MemoryWindow;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.internal.VerbsBridge;
import io.jrdma.rdmacm.RemoteRegion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One endpoint's messages that are larger than the peer's receive buffers, moved by the receiver's invitation. The
 * sender RDMA-writes an advertisement (length, immediate value) into the peer's mailbox and rings it: a send of no
 * bytes and no immediate value, which the application cannot send. The receiver takes a pooled buffer, binds a type 2
 * memory window over exactly it (remote write, through this queue pair only) and invites the sender the same way; the
 * sender RDMA-writes the message there, then writes and rings "done" in the same chain, and its operation completes
 * with the write. The receiver invalidates the window itself (LOCAL_INV) before it hands the message over: no peer is
 * trusted to have stopped writing.
 *
 * <p>The data moves by write, not by a read of the sender's memory, because a duplicated RDMA read request (a lossy
 * network's duplicate, arriving after the read completed) is executed again by the responder, which fails on a window
 * already invalidated and moves the sender's queue pair to the error state; a duplicated write is only acknowledged.
 *
 * <p>Each side numbers the entries it writes (1, 2, ...) and writes entry {@code n} at {@code (n - 1) % credits} of
 * the peer's ring: a ring is a message and takes a credit, so an entry is never overwritten before the peer read it
 * (it reads it when the ring arrives, and releases the ring's buffer then). Messages are handed to the application in
 * the order they were sent: what arrives behind a large message still being written waits for it. The worker's
 * thread only.
 */
final class Rendezvous {
    /**
     * A mailbox entry, little-endian: {@code u64} address, {@code u32} rkey, {@code u32} length, {@code u32} flags
     * (bit 0: the message has an immediate value; bit 1: an invitation, naming the window to write into; bit 2: done,
     * naming the window written), {@code u32} immediate, {@code u64} the entry's number.
     */
    static final int ENTRY = 32;
    /** The largest message: the largest pooled buffer, which the receiver takes for it. */
    static final int MAX_MESSAGE = 1 << BufferPool.MAX_SHIFT;
    /** Send-queue slots a step takes: the bind or the data write, the entry and the ring. */
    static final int SLOTS = 3;
    private static final int HAS_IMMEDIATE = 1;
    static final int INVITATION = 2;
    static final int DONE = 4;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A large message sent: advertised, then invited into {@code target}, then written. */
    static final class Outgoing {
        final MemoryRegion region;
        /** The pieces it is written from instead, if it was sent as a gather list (a copy of the sender's). */
        final GatherList gather;
        final long offset;
        final int length;
        final OperationHandler<Object> handler;
        final Object attachment;
        RemoteRegion target;

        Outgoing(MemoryRegion region, GatherList gather, long offset, int length, OperationHandler<Object> handler,
                 Object attachment) {
            this.region = region;
            this.gather = gather;
            this.offset = offset;
            this.length = length;
            this.handler = handler;
            this.attachment = attachment;
        }
    }

    /**
     * A large message the peer announced: invited into {@code buffer} (taken then, within the endpoint's rendezvous
     * memory) through {@code window}, written, then handed over.
     */
    static final class Incoming {
        final int length;
        final boolean hasImmediate;
        final int immediate;
        Buffer buffer;
        MemoryWindow window;
        int rkey;
        /** Its window is invalidated: the message is whole and no peer can change it any more. */
        boolean ready;
        /** Its invalidation is in flight: the completion gives the buffer back if the endpoint broke meanwhile. */
        boolean invalidating;
        /** The peer said it is written: it is whole. */
        boolean written;
        /** Handed to the application when the endpoint broke, whether or not its invalidation completed. */
        boolean handedOver;

        Incoming(int length, boolean hasImmediate, int immediate) {
            this.length = length;
            this.hasImmediate = hasImmediate;
            this.immediate = immediate;
        }
    }

    private final Endpoint ep;
    private final Worker worker;
    /** Advertised, waiting for the peer's invitation. */
    private final ArrayDeque<Outgoing> advertised = new ArrayDeque<>();
    /** Invited, waiting for slots and a credit to be written. */
    private final ArrayDeque<Outgoing> toWrite = new ArrayDeque<>();
    /** Written, waiting for the write's completion. */
    private int writing;
    private final ArrayDeque<MemoryWindow> freeWindows = new ArrayDeque<>();
    private final List<MemoryWindow> windows = new ArrayList<>();
    /** Entries written into the peer's mailbox, and read from this side's. */
    private long written;
    private long read;
    /** Announced, waiting for slots and a credit to be invited. */
    private final ArrayDeque<Incoming> toInvite = new ArrayDeque<>();
    /** Bound, waiting for their invitations to be posted (this round). */
    private final ArrayDeque<Incoming> toRing = new ArrayDeque<>();
    /** Invited, waiting for the peer's "done". */
    private final ArrayDeque<Incoming> invited = new ArrayDeque<>();
    /** Done, waiting for a slot to invalidate the window. */
    private final ArrayDeque<Incoming> toInvalidate = new ArrayDeque<>();
    /** Messages (ReceivedMessage or Incoming) behind a large message not yet ready, in arrival order. */
    private final ArrayDeque<Object> inbound = new ArrayDeque<>();
    /**
     * Bytes of pooled buffers the peer's large messages hold here (invited or not yet released), and copies of the
     * messages that wait behind them.
     */
    private long held;
    private int reserved;
    private boolean aborted;
    /** The break cut a large message of the peer's off: what arrives after it is dropped. */
    private boolean cutOff;

    Rendezvous(Endpoint ep, Worker worker) {
        this.ep = ep;
        this.worker = worker;
    }

    // ---- the sender ---------------------------------------------------------------------------------------------

    /**
     * Advertises {@code length} bytes of {@code region} from {@code offset} (or the pieces of {@code gather}, which
     * it copies), if the peer said it may be written, and
     * a credit and three queue slots are free (and one more, which credit updates keep).
     *
     * @return whether it was posted
     */
    @SuppressWarnings("unchecked")
    boolean send(MemoryRegion region, GatherList gather, long offset, int length, boolean hasImmediate,
                 int immediate, OperationHandler<?> handler, Object attachment) throws RdmaException {
        if (!ep.peerReady() || ep.freeSlots() <= SLOTS || !hasCredits(2)) {
            return false;   // before the peer's first ring, the backlog holds it: the ring drains the backlog
        }
        ring(null, false, length, hasImmediate ? HAS_IMMEDIATE : 0, immediate);
        advertised.add(new Outgoing(region, gather == null ? null : gather.copy(), offset, length,
                (OperationHandler<Object>) handler, attachment));
        reserved++;
        return true;
    }

    /**
     * Credits kept for the "done" rings of the messages advertised: the receiver hands nothing over behind a large
     * message until its "done" arrives, so that ring must never wait for a credit the receiver holds for them.
     */
    int reserved() {
        return reserved;
    }

    private boolean hasCredits(int needed) {
        if (ep.credits() < needed) {
            worker.waitForCredits(ep, needed);
            return false;
        }
        return true;
    }

    /**
     * Writes the next entry into the peer's mailbox and rings, chained after the bind or the write the worker just
     * prepared if {@code chained}; the caller checked the slots and the credit.
     */
    private void ring(RemoteRegion named, boolean chained, int length, int flags, int immediate)
            throws RdmaException {
        long number = written + 1;
        int entrySlot = ep.takeSlot(Endpoint.RDV_ENTRY, ENTRY, null);
        int ringSlot = ep.takeSlot(Endpoint.RDV_RING, 0, null);
        MemorySegment entry = worker.scratch(ep, entrySlot);
        entry.set(LONG, 0, named == null ? 0 : named.address());
        entry.set(INT, 8, named == null ? 0 : named.remoteKey());
        entry.set(INT, 12, length);
        entry.set(INT, 16, flags);
        entry.set(INT, 20, immediate);
        entry.set(LONG, 24, number);
        try {
            worker.postRing(ep, chained, entrySlot, ringSlot, ep.peerMailbox(number));
        } catch (RdmaException | RuntimeException e) {
            ep.releaseSlot(entrySlot);
            ep.releaseSlot(ringSlot);
            throw e;
        }
        written = number;
        ep.messageSent();
    }

    /** The peer invites the oldest advertised message into its memory at {@code address}, key {@code rkey}. */
    private void invited(long address, int rkey, int length) {
        Outgoing o = advertised.peek();
        // The length is the peer's: it is checked against the offer before it makes a region (whose constructor
        // would throw on a length of zero, out of the worker's poll).
        if (o == null || length != o.length) {
            ep.fail(new EndpointException(ep + ": the peer invited a large message it was not offered"));
            return;
        }
        advertised.poll();
        o.target = new RemoteRegion(address, rkey, length);
        toWrite.add(o);
    }

    /** A large message's write completed: the peer holds its bytes (acknowledged), the send is complete. */
    void writeCompleted(Outgoing o, WcStatus status) {
        writing--;
        if (status == WcStatus.SUCCESS) {
            ep.operationCompleted(o.handler, o.length, o.attachment);
        } else {
            ep.operationFailed(o.handler, new EndpointException("writing a large message on " + ep + " failed: "
                    + status.description(), status, null), o.attachment);
        }
    }

    // ---- the receiver -------------------------------------------------------------------------------------------

    /**
     * The peer rang: its next mailbox entry advertises a large message (invited now or when slots free up), invites
     * one sent, or says one is written.
     */
    void rang(MemorySegment mailbox, int entries) {
        if (!ep.peerReady()) {
            ep.peerIsReady();   // the peer's first ring names no entry: its window over its block is bound
            return;
        }
        long number = ++read;
        MemorySegment entry = mailbox.asSlice((number - 1) % entries * ENTRY, ENTRY);
        long address = entry.get(LONG, 0);
        int rkey = entry.get(INT, 8);
        int length = entry.get(INT, 12);
        int flags = entry.get(INT, 16);
        if (entry.get(LONG, 24) != number) {
            ep.fail(new EndpointException(ep + ": the peer rang without a mailbox entry"));
        } else if ((flags & INVITATION) != 0) {
            invited(address, rkey, length);
        } else if ((flags & DONE) != 0) {
            written(rkey);
        } else if (length <= 0 || length > MAX_MESSAGE) {
            ep.fail(new EndpointException(ep + ": the peer's large-message advertisement is malformed"));
        } else {
            Incoming in = new Incoming(length, (flags & HAS_IMMEDIATE) != 0, entry.get(INT, 20));
            inbound.add(in);
            toInvite.add(in);
        }
    }

    /** The peer wrote the oldest invited message: its window is invalidated, now or when a slot frees up. */
    private void written(int rkey) {
        Incoming in = invited.peek();
        if (in == null || in.rkey != rkey) {
            ep.fail(new EndpointException(ep + ": the peer says it wrote a large message it was not invited to"));
            return;
        }
        invited.poll();
        in.written = true;
        toInvalidate.add(in);
    }

    /** A window of a large message is invalidated: the message is whole, and the window free for the next. */
    void invalidated(Incoming in, WcStatus status) {
        in.invalidating = false;
        if (status == WcStatus.SUCCESS) {
            VerbsBridge.hooks().windowInvalidated(in.window);
            freeWindows.push(in.window);
        }
        // A failed invalidation after the peer left in order (its last credit update unanswered, this side's queue
        // pair in the error state) loses nothing: the peer wrote the message whole, and no one can write through the
        // window any more.
        boolean whole = status == WcStatus.SUCCESS || (in.written && ep.peerGone());
        if (!whole || aborted) {
            if (!in.handedOver) {
                giveBack(in.buffer);
                inbound.remove(in);
            }
            return;
        }
        in.ready = true;
        deliver();
    }

    /** Whether messages must wait behind a large one, or be dropped behind one the break cut off. */
    boolean holding() {
        return !inbound.isEmpty() || cutOff;
    }

    /**
     * Keeps {@code m} until the large messages before it are handed over: as a copy in a pooled buffer, so that its
     * receive buffer and with it the peer's credit go back at once (credits held by the order of delivery could
     * leave the peer without one for the rings that complete those large messages). Beyond the rendezvous memory
     * it keeps {@code m} itself, and the peer slows down.
     */
    void hold(ReceivedMessage m) {
        if (cutOff) {
            m.drop();   // it arrived after the break, behind a large message that never came whole
            return;
        }
        int size = Math.max(1, m.length());
        if (held + size <= worker.options().rendezvousMemory()) {
            try {
                Buffer copy = worker.buffers().allocate(size);
                held += copy.segment().byteSize();
                inbound.add(ReceivedMessage.copyOf(m, copy));
                m.drop();
                return;
            } catch (RdmaException | RuntimeException e) {
                // No pooled memory left: the message itself waits, and its credit with it.
            }
        }
        inbound.add(m);
    }

    /** Posts the invalidations, writes and invitations that wait, while slots and credits allow; before the backlog. */
    void post() throws RdmaException {
        Incoming in;
        while ((in = toInvalidate.peek()) != null && ep.freeSlots() > 1) {
            int slot = ep.takeSlot(Endpoint.RDV_INVALIDATE, 0, in.buffer.region());
            ep.attach(slot, in);
            try {
                worker.postInvalidate(ep, slot, in.rkey);
            } catch (RdmaException | RuntimeException e) {
                ep.releaseSlot(slot);
                throw e;
            }
            in.invalidating = true;
            toInvalidate.poll();
        }
        Outgoing o;
        while ((o = toWrite.peek()) != null && ep.freeSlots() > SLOTS && !waitsForEmptyQueue()) {
            int slot = ep.takeSlot(Endpoint.RDV_WRITE, o.length, o.region);
            if (o.gather != null) {
                ep.hold(slot, o.gather);
            }
            ep.attach(slot, o);
            reserved--;   // the "done" ring takes the credit kept for it
            try {
                worker.prepareWrite(ep, slot, o.region, o.gather, o.offset, o.length, o.target);
                ring(o.target, true, 0, DONE, 0);
            } catch (RdmaException | RuntimeException e) {
                reserved++;
                ep.releaseSlot(slot);
                throw e;
            }
            writing++;
            toWrite.poll();
        }
        if (worker.bindsAtHead() && ep.inFlight() > 0) {
            return;   // invited once the queue is empty: the endpoint posts nothing else meanwhile
        }
        // The binds go first, then the invitations that name them, so that all binds lead the queue.
        while ((in = toInvite.peek()) != null && ep.freeSlots() - 2 * toRing.size() > SLOTS
                && hasCredits(1 + toRing.size()) && fits(in)) {
            try {
                in.buffer = worker.buffers().allocate(in.length);
            } catch (RdmaException | RuntimeException e) {
                ep.fail(new EndpointException(ep + ": no buffer for a large message of " + in.length + " bytes",
                        null, e));
                return;
            }
            held += in.buffer.segment().byteSize();
            // The peer's done ring says it wrote the message, not that it wrote all of it: what it left out must
            // not show what the pooled memory held before (other endpoints' messages).
            in.buffer.segment().asSlice(0, in.length).fill((byte) 0);
            MemoryWindow window = freeWindows.poll();
            if (window == null) {
                window = worker.protectionDomain().allocateMemoryWindow(MemoryWindow.Type.TYPE_2);
                windows.add(window);
            }
            int rkey = window.nextRemoteKey();
            int bind = ep.takeSlot(Endpoint.RDV_BIND, 0, in.buffer.region());
            try {
                worker.postBind(ep, bind, window, rkey, in.buffer.region(), in.buffer.offset(), in.length);
            } catch (RdmaException | RuntimeException e) {
                ep.releaseSlot(bind);
                freeWindows.push(window);
                giveBack(in.buffer);
                in.buffer = null;
                throw e;
            }
            in.window = window;
            in.rkey = rkey;
            toRing.add(toInvite.poll());
        }
        while ((in = toRing.poll()) != null) {
            ring(new RemoteRegion(in.buffer.segment().address(), in.rkey, in.length), false, in.length, INVITATION,
                    0);
            invited.add(in);
        }
    }

    /** Whether the pooled memory the peer's large messages hold here leaves room for {@code in}. */
    private boolean fits(Incoming in) {
        return held == 0 || held + in.length <= worker.options().rendezvousMemory();
    }

    /**
     * Whether an invitation waits for the endpoint's send queue to empty ({@link Worker#bindsAtHead()}): until it is
     * posted, the endpoint posts nothing else, or the queue might never be empty.
     */
    boolean waitsForEmptyQueue() {
        Incoming in = toInvite.peek();
        return in != null && worker.bindsAtHead() && fits(in) && ep.credits() > 0;
    }

    /** Hands over what heads the inbound queue, up to the next large message not yet ready. */
    private void deliver() {
        Object head;
        while ((head = inbound.peek()) != null && !aborted) {
            if (head instanceof Incoming in) {
                if (!in.ready) {
                    return;
                }
                inbound.poll();
                worker.deliver(ep, ReceivedMessage.large(worker, ep, in));
            } else {
                inbound.poll();
                worker.deliver(ep, (ReceivedMessage) head);
            }
        }
        if (inbound.isEmpty() && !aborted) {
            ep.checkPeerGone();
        }
    }

    // ---- both ---------------------------------------------------------------------------------------------------

    /** Whether no large message of this side's is being sent: advertised, invited or being written. */
    boolean sendingNothing() {
        return advertised.isEmpty() && toWrite.isEmpty() && writing == 0;
    }

    /** Whether a large message of the peer's waits for this side's invitation or for the peer's "done". */
    boolean awaitingPeer() {
        return !toInvite.isEmpty() || !invited.isEmpty();
    }

    /** Whether nothing is on its way: a graceful close waits for that. */
    boolean idle() {
        return sendingNothing() && !awaitingPeer() && toInvalidate.isEmpty();
    }

    /** Whether a large message being sent uses {@code region}: it is written from there once the peer invites it. */
    boolean uses(MemoryRegion region) {
        for (ArrayDeque<Outgoing> list : List.of(advertised, toWrite)) {
            for (Outgoing o : list) {
                if (o.region == region || o.gather != null && o.gather.uses(region)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The endpoint broke, after its queue pair left the connected state (so no peer can write through the windows
     * any more): sends not written fail (those being written fail with their write's flush). What the peer sent is
     * still handed over in order up to its first large message not yet written whole, as small messages that
     * arrive before the disconnect are; the rest goes back.
     */
    void abort(Throwable cause) {
        aborted = true;
        Outgoing o;
        advertised.addAll(toWrite);
        toWrite.clear();
        while ((o = advertised.poll()) != null) {
            ep.operationFailed(o.handler, new EndpointException("a large message on " + ep + " was not sent: " + ep
                    + " disconnected", null, cause), o.attachment);
        }
        toInvite.clear();
        toRing.clear();
        invited.clear();
        toInvalidate.clear();
        Object head;
        boolean whole = true;
        while ((head = inbound.poll()) != null) {
            if (head instanceof ReceivedMessage m) {
                if (whole) {
                    worker.deliver(ep, m);
                } else {
                    m.drop();
                }
                continue;
            }
            Incoming in = (Incoming) head;
            whole &= in.written;
            cutOff = !whole;
            if (whole) {
                // Its window lies on a queue pair that left the connected state: no invalidation is needed.
                in.handedOver = true;
                worker.deliver(ep, ReceivedMessage.large(worker, ep, in));
            } else if (in.buffer != null && !in.invalidating) {
                giveBack(in.buffer);
            }
            // An Incoming being invalidated gives its buffer back when the invalidation's flush completes.
        }
    }

    /**
     * A large message's buffer goes back to the pool, from any thread (the application's release): the memory it
     * held may let the next large message be invited.
     */
    void giveBack(Buffer buffer) {
        if (!worker.inThread()) {
            if (!worker.executeUnlessClosed(() -> giveBack(buffer))) {
                buffer.close();   // the worker and its endpoints are gone: only the pool is left to give it to
            }
            return;
        }
        held -= buffer.segment().byteSize();
        buffer.close();
        if (!aborted) {
            ep.drainBacklog();
        }
    }

    /** Frees the windows, once nothing is in flight and before the queue pair is destroyed. */
    void close() {
        for (MemoryWindow w : windows) {
            try {
                w.close();
            } catch (RdmaException | RuntimeException e) {
                System.getLogger(Rendezvous.class.getName()).log(System.Logger.Level.WARNING, "closing " + w, e);
            }
        }
        windows.clear();
        freeWindows.clear();
    }
}
