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
 * One endpoint's messages that are larger than the peer's receive buffers. The sender binds a type 2 memory window
 * over the message (remote read, through this queue pair only), RDMA-writes an advertisement into the peer's mailbox
 * and rings it: a send of no bytes and no immediate value, which the application cannot send. The receiver
 * RDMA-reads the message into a pooled buffer and answers the same way, with an answer in the mailbox; the sender then
 * invalidates the window itself (LOCAL_INV), which completes its operation: no peer is trusted to have done it. Each side numbers the entries
 * it writes (1, 2, ...) and writes entry {@code n} at {@code (n - 1) % credits} of the peer's ring: a ring is a
 * message and takes a credit, so an entry is never overwritten before the peer read it (it reads it when the ring
 * arrives, and releases the ring's buffer then). Messages are handed to the application in the order they were
 * sent: what arrives behind a large message still being read waits for it. The worker's thread only.
 */
final class Rendezvous {
    /**
     * A mailbox entry, little-endian: {@code u64} address, {@code u32} rkey, {@code u32} length, {@code u32} flags
     * (bit 0: the message has an immediate value; bit 1: an answer, whose rkey names the window read),
     * {@code u32} immediate, {@code u64} the entry's number.
     */
    static final int ENTRY = 32;
    /** The largest message: the largest pooled buffer, which the receiver reads it into. */
    static final int MAX_MESSAGE = 1 << BufferPool.MAX_SHIFT;
    /** Send-queue slots a large message takes: the bind, the advertisement and the ring. */
    static final int SLOTS = 3;
    private static final int HAS_IMMEDIATE = 1;
    private static final int ANSWER = 2;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A large message sent: its window stays bound until the peer answered and the window was invalidated. */
    record Outgoing(MemoryWindow window, int rkey, MemoryRegion region, int length,
                            OperationHandler<Object> handler, Object attachment) {
    }

    /** What the peer's entry says of a large message. */
    record Advert(RemoteRegion source, int length, boolean hasImmediate, int immediate) {
    }

    /** A large message the peer announced: read into {@code buffer}, then handed over in order. */
    static final class Incoming {
        final Advert advert;
        final Buffer buffer;
        boolean read;

        Incoming(Advert advert, Buffer buffer) {
            this.advert = advert;
            this.buffer = buffer;
        }
    }

    private final Endpoint ep;
    private final Worker worker;
    private final ArrayDeque<Outgoing> outgoing = new ArrayDeque<>();
    /** Answered messages whose window waits for a queue slot to be invalidated. */
    private final ArrayDeque<Outgoing> toInvalidate = new ArrayDeque<>();
    private final ArrayDeque<MemoryWindow> freeWindows = new ArrayDeque<>();
    private final List<MemoryWindow> windows = new ArrayList<>();
    /** Entries written into the peer's mailbox, and read from this side's. */
    private long written;
    private long read;
    private final ArrayDeque<Incoming> toRead = new ArrayDeque<>();
    private final ArrayDeque<Integer> toAnswer = new ArrayDeque<>();
    /** Messages (ReceivedMessage or Incoming) behind a large message still being read, in arrival order. */
    private final ArrayDeque<Object> inbound = new ArrayDeque<>();
    private boolean aborted;

    Rendezvous(Endpoint ep, Worker worker) {
        this.ep = ep;
        this.worker = worker;
    }

    // ---- the sender ---------------------------------------------------------------------------------------------

    /**
     * Advertises {@code length} bytes of {@code region} from {@code offset}, if a credit and three queue slots are
     * free (and one more, which credit updates keep).
     *
     * @return whether it was posted
     */
    @SuppressWarnings("unchecked")
    boolean send(MemoryRegion region, long offset, int length, boolean hasImmediate, int immediate,
                 OperationHandler<?> handler, Object attachment) throws RdmaException {
        if (!region.access().contains(Access.MW_BIND)) {
            throw new IllegalArgumentException("a message of " + length + " bytes goes by rendezvous, which needs a "
                    + "region registered with MW_BIND (pooled buffers and the registration cache's are): " + region);
        }
        if (ep.freeSlots() <= SLOTS) {
            return false;
        }
        if (ep.credits() <= 0) {
            worker.waitForCredits(ep);
            return false;
        }
        MemoryWindow window = freeWindows.poll();
        while (window != null && window.isClosed()) {
            window = freeWindows.poll();   // closed with the worker's registrations of an arena that closed
        }
        if (window == null) {
            window = worker.protectionDomain().allocateMemoryWindow(MemoryWindow.Type.TYPE_2);
            windows.add(window);
        }
        int rkey = window.nextRemoteKey();
        int bind = ep.takeSlot(Endpoint.RDV_BIND, 0, region);
        try {
            ring(window, bind, region, offset, length, rkey, hasImmediate ? HAS_IMMEDIATE : 0, immediate);
        } catch (RdmaException | RuntimeException e) {
            ep.releaseSlot(bind);
            freeWindows.push(window);
            throw e;
        }
        outgoing.add(new Outgoing(window, rkey, region, length, (OperationHandler<Object>) handler, attachment));
        return true;
    }

    /**
     * Writes the next entry into the peer's mailbox and rings, after binding {@code window} if it is given; the
     * caller checked the slots and the credit.
     */
    private void ring(MemoryWindow window, int bindSlot, MemoryRegion region, long offset, int length, int rkey,
                      int flags, int immediate) throws RdmaException {
        long number = written + 1;
        int entrySlot = ep.takeSlot(Endpoint.RDV_ENTRY, ENTRY, null);
        int ringSlot = ep.takeSlot(Endpoint.RDV_RING, 0, null);
        MemorySegment entry = worker.scratch(ep, entrySlot);
        entry.set(LONG, 0, region == null ? 0 : region.address() + offset);
        entry.set(INT, 8, rkey);
        entry.set(INT, 12, length);
        entry.set(INT, 16, flags);
        entry.set(INT, 20, immediate);
        entry.set(LONG, 24, number);
        try {
            worker.postRing(ep, window, bindSlot, region, offset, length, rkey, entrySlot, ringSlot,
                    ep.peerMailbox(number));
        } catch (RdmaException | RuntimeException e) {
            ep.releaseSlot(entrySlot);
            ep.releaseSlot(ringSlot);
            throw e;
        }
        written = number;
        ep.messageSent();
    }

    /** The peer read a large message: its window is invalidated, now or when a slot frees up. */
    private void answered(int rkey) {
        Outgoing o = outgoing.peek();
        if (o == null || o.rkey != rkey) {
            ep.fail(new EndpointException(ep + ": the peer answered a large message it was not sent"));
            return;
        }
        outgoing.poll();
        toInvalidate.add(o);
    }

    /** The window of a large message is invalidated: the send is complete, and the window free for the next. */
    void invalidated(Outgoing o, WcStatus status) {
        if (status == WcStatus.SUCCESS) {
            VerbsBridge.hooks().windowInvalidated(o.window);
            freeWindows.push(o.window);
            ep.operationCompleted(o.handler, o.length, o.attachment);
        } else {
            ep.operationFailed(o.handler, new EndpointException("invalidating the window of a large message on "
                    + ep + " failed: " + status.description(), status, null), o.attachment);
        }
    }

    // ---- the receiver -------------------------------------------------------------------------------------------

    /**
     * The peer rang: its next mailbox entry answers a large message sent, or advertises one, which is read now or
     * when slots free up.
     */
    void rang(MemorySegment mailbox, int entries) {
        long number = ++read;
        MemorySegment entry = mailbox.asSlice((number - 1) % entries * ENTRY, ENTRY);
        long address = entry.get(LONG, 0);
        int rkey = entry.get(INT, 8);
        int length = entry.get(INT, 12);
        int flags = entry.get(INT, 16);
        if (entry.get(LONG, 24) != number) {
            ep.fail(new EndpointException(ep + ": the peer rang without a mailbox entry"));
            return;
        }
        if ((flags & ANSWER) != 0) {
            answered(rkey);
            return;
        }
        if (length <= 0 || length > MAX_MESSAGE) {
            ep.fail(new EndpointException(ep + ": the peer's large-message advertisement is malformed"));
            return;
        }
        Buffer buffer;
        try {
            buffer = worker.buffers().allocate(length);
        } catch (RdmaException | RuntimeException e) {
            ep.fail(new EndpointException(ep + ": no buffer for a large message of " + length + " bytes", null, e));
            return;
        }
        Incoming in = new Incoming(new Advert(new RemoteRegion(address, rkey, length), length,
                (flags & HAS_IMMEDIATE) != 0, entry.get(INT, 20)), buffer);
        inbound.add(in);
        toRead.add(in);
    }

    /** Whether messages must wait behind a large one. */
    boolean holding() {
        return !inbound.isEmpty();
    }

    void hold(ReceivedMessage m) {
        inbound.add(m);
    }

    /** Posts the reads and answers that wait, while slots, read depth and credits allow; before the backlog. */
    void post() throws RdmaException {
        Outgoing o;
        while ((o = toInvalidate.peek()) != null && ep.freeSlots() > 1) {
            int slot = ep.takeSlot(Endpoint.RDV_INVALIDATE, 0, o.region);
            ep.attach(slot, o);
            try {
                worker.postInvalidate(ep, slot, o.rkey);
            } catch (RdmaException | RuntimeException e) {
                ep.releaseSlot(slot);
                throw e;
            }
            toInvalidate.poll();
        }
        Incoming in;
        while ((in = toRead.peek()) != null && ep.freeSlots() > 1 && ep.readSlotFree()) {
            int slot = ep.takeSlot(Endpoint.RDV_READ, in.advert.length(), in.buffer.region());
            ep.attach(slot, in);
            try {
                worker.post(ep, slot, io.jrdma.ibverbs.SendOpcode.RDMA_READ, in.buffer.region(), in.buffer.offset(),
                        in.advert.length(), in.advert.source(), 0, 0, 0, 0);
            } catch (RdmaException | RuntimeException e) {
                ep.releaseSlot(slot);
                throw e;
            }
            ep.readPosted();
            toRead.poll();
        }
        Integer rkey;
        while ((rkey = toAnswer.peek()) != null && ep.freeSlots() > 2) {
            if (ep.credits() <= 0) {
                worker.waitForCredits(ep);
                return;
            }
            ring(null, -1, null, 0, 0, rkey, ANSWER, 0);
            toAnswer.poll();
        }
    }

    /** A read of a large message completed. */
    void readCompleted(Incoming in, WcStatus status) {
        if (status != WcStatus.SUCCESS || aborted) {
            in.buffer.close();
            inbound.remove(in);
            return;
        }
        in.read = true;
        toAnswer.add(in.advert.source().remoteKey());
        deliver();
    }

    /** Hands over what heads the inbound queue, up to the next large message still being read. */
    private void deliver() {
        Object head;
        while ((head = inbound.peek()) != null && !aborted) {
            if (head instanceof Incoming in) {
                if (!in.read) {
                    return;
                }
                inbound.poll();
                worker.deliver(ep, ReceivedMessage.large(worker, ep, in));
            } else {
                inbound.poll();
                worker.deliver(ep, (ReceivedMessage) head);
            }
        }
    }

    // ---- both ---------------------------------------------------------------------------------------------------

    /** Whether nothing is on its way: a graceful close waits for that. */
    boolean idle() {
        return outgoing.isEmpty() && toInvalidate.isEmpty() && toRead.isEmpty() && toAnswer.isEmpty();
    }

    /** Whether a large message being sent uses {@code region}: the peer may read it until it answers. */
    boolean uses(MemoryRegion region) {
        for (ArrayDeque<Outgoing> list : List.of(outgoing, toInvalidate)) {
            for (Outgoing o : list) {
                if (o.region == region) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The endpoint broke, after its queue pair left the connected state (so no peer can read through the windows
     * any more): sends fail, and what was received and not handed over goes back.
     */
    void abort(Throwable cause) {
        aborted = true;
        Outgoing o;
        outgoing.addAll(toInvalidate);
        toInvalidate.clear();
        while ((o = outgoing.poll()) != null) {
            ep.operationFailed(o.handler, new EndpointException("a large message on " + ep + " was not read: " + ep
                    + " disconnected", null, cause), o.attachment);
        }
        toAnswer.clear();
        Incoming in;
        while ((in = toRead.poll()) != null) {
            in.buffer.close();
            inbound.remove(in);
        }
        Object head;
        while ((head = inbound.poll()) != null) {
            if (head instanceof ReceivedMessage m) {
                m.drop();
            } else if (((Incoming) head).read) {
                ((Incoming) head).buffer.close();
            }
            // An Incoming still being read closes its buffer when the read's flush completes.
        }
    }

    /** Frees the windows, once the queue pair is gone. */
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
