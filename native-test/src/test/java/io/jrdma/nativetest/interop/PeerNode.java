package io.jrdma.nativetest.interop;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionChannel;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.rdmacm.CmId;

import java.io.IOException;
import java.util.EnumSet;
import java.util.Set;
import java.lang.foreign.MemorySegment;

/**
 * One connection-manager id's verbs objects, as the rdmacm examples make them per id: a protection domain, a send and
 * a receive completion queue on one completion channel (waits sleep instead of spinning), the id's queue pair and one
 * memory region: {@code depth} receive slots of {@code slotBytes}, then {@code sendBytes} to send from.
 */
final class PeerNode implements AutoCloseable {
    /** What receive slots hold before a receive: content checks then see what was written, not a zeroed buffer. */
    static final byte UNWRITTEN = (byte) 0xa5;

    /** Makes the node of an id. */
    @FunctionalInterface
    interface Factory {
        PeerNode on(CmId id) throws Exception;
    }

    /** Checks one successful completion further; throws if it is wrong. */
    @FunctionalInterface
    interface CompletionCheck {
        void check(WorkCompletions wcs, int index) throws Exception;
    }

    private final CloseStack owned;
    private final CmId id;
    private final ProtectionDomain pd;
    private final CompletionChannel channel;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final MemoryRegion mr;
    private final int slotBytes;
    private final long sendOffset;
    private final WorkCompletions wcs = new WorkCompletions(16);

    private PeerNode(CloseStack owned, CmId id, ProtectionDomain pd, CompletionChannel channel, CompletionQueue sendCq,
                     CompletionQueue recvCq, QueuePair qp, MemoryRegion mr, int slotBytes, long sendOffset) {
        this.owned = owned;
        this.id = id;
        this.pd = pd;
        this.channel = channel;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.qp = qp;
        this.mr = mr;
        this.slotBytes = slotBytes;
        this.sendOffset = sendOffset;
    }

    /**
     * Makes the verbs objects on {@code id}'s device, its queue pair through the connection manager.
     *
     * @param maxInline the inline data the queue pair must take (0 for none)
     */
    static PeerNode on(CmId id, QpType type, int depth, int slotBytes, int sendBytes, int maxInline)
            throws Exception {
        CloseStack owned = new CloseStack();
        try {
            Context ctx = id.context();
            ProtectionDomain pd = owned.add(ctx.allocateProtectionDomain());
            CompletionChannel channel = owned.add(ctx.createCompletionChannel());
            CompletionQueue sendCq = owned.add(ctx.completionQueue(depth).channel(channel).create());
            CompletionQueue recvCq = owned.add(ctx.completionQueue(depth).channel(channel).create());
            QueuePair qp = owned.add(id.createQueuePair(pd.queuePair(type).sendQueue(sendCq).receiveQueue(recvCq)
                    .capacity(depth, depth).maxInlineData(maxInline)));
            long sendOffset = (long) depth * slotBytes;
            MemoryRegion mr = owned.add(pd.allocate(Math.max(1, sendOffset + sendBytes), Access.LOCAL_WRITE));
            return new PeerNode(owned, id, pd, channel, sendCq, recvCq, qp, mr, slotBytes, sendOffset);
        } catch (Exception e) {
            try {
                owned.close();
            } catch (Exception closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    CmId id() {
        return id;
    }

    ProtectionDomain pd() {
        return pd;
    }

    QueuePair qp() {
        return qp;
    }

    MemoryRegion mr() {
        return mr;
    }

    /** Keeps {@code resource} (e.g. an address handle of {@link #pd()}) to close before the node's own objects. */
    <T extends AutoCloseable> T keep(T resource) {
        return owned.add(resource);
    }

    /** The buffer sends go out from. */
    long sendOffset() {
        return sendOffset;
    }

    /** Receive slot {@code slot}, as a receive whose work request id is {@code slot} filled it. */
    MemorySegment slot(long slot) {
        return mr.segment().asSlice(slot * slotBytes, slotBytes);
    }

    /** Posts {@code count} receives of a whole slot each, slot i with work request id i. */
    void postReceives(int count) throws Exception {
        ReceiveWorkRequest wr = new ReceiveWorkRequest(1);
        for (int i = 0; i < count; i++) {
            slot(i).fill(UNWRITTEN);
            qp.postReceive(wr.reset().id(i).add(mr, (long) i * slotBytes, slotBytes));
        }
    }

    /** Posts {@code wr} (whose id, opcode and buffers are set) {@code count} times. */
    void postSends(SendWorkRequest wr, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            qp.postSend(wr);
        }
    }

    /**
     * Waits for {@code count} successful receive completions of {@code bytes} each, each also checked by
     * {@code check}.
     *
     * @throws AssertionError if one is of another size
     */
    void awaitReceives(int count, int bytes, Deadline deadline, CompletionCheck check) throws Exception {
        await(recvCq, WcOpcode.RECV, count, deadline, Set.of(), (wcs, i) -> {
            if (wcs.byteLength(i) != bytes) {
                throw new AssertionError(id + ": a receive of " + wcs.byteLength(i) + " bytes, not " + bytes);
            }
            check.check(wcs, i);
        });
    }

    /** Waits for {@code count} successful send completions. */
    void awaitSends(int count, Deadline deadline) throws Exception {
        await(sendCq, WcOpcode.SEND, count, deadline, Set.of(), (w, i) -> { });
    }

    /**
     * Waits for {@code count} send completions after the peer confirmed by its own means that it received every
     * message and disconnected: a send may then also have ended {@code RETRY_EXC_ERR} (its ACK was lost and its
     * retransmissions met the disconnected peer) or {@code WR_FLUSH_ERR} (this side's disconnect flushed it).
     */
    void awaitConfirmedSends(int count, Deadline deadline) throws Exception {
        await(sendCq, WcOpcode.SEND, count, deadline, EnumSet.of(WcStatus.RETRY_EXC_ERR, WcStatus.WR_FLUSH_ERR),
                (w, i) -> { });
    }

    /**
     * Polls {@code cq} until {@code count} completions came, sleeping on the channel between: polled, armed and
     * polled again before each sleep, so that no completion slips between the last poll and the arming.
     */
    private void await(CompletionQueue cq, WcOpcode opcode, int count, Deadline deadline, Set<WcStatus> tolerated,
                       CompletionCheck check) throws Exception {
        int seen = 0;
        boolean armed = false;
        while (seen < count) {
            int n = cq.poll(wcs);
            for (int i = 0; i < n; i++, seen++) {
                if (tolerated.contains(wcs.status(i))) {
                    continue;
                }
                if (wcs.status(i) != WcStatus.SUCCESS || wcs.opcode(i) != opcode) {
                    throw new IOException(id + ": completion " + (seen + 1) + " of " + count + " is "
                            + wcs.opcode(i) + " " + wcs.status(i) + " (vendor error " + wcs.vendorError(i)
                            + "), not a successful " + opcode);
                }
                check.check(wcs, i);
            }
            if (n > 0) {
                armed = false;
            } else if (!armed) {
                cq.requestNotification(false);
                armed = true;
            } else if (deadline.passed() || channel.await(deadline.left()) == null) {
                throw new IOException(id + ": " + seen + " of " + count + " " + opcode + " completions came in time");
            } else {
                armed = false;
            }
        }
    }

    @Override
    public void close() throws Exception {
        owned.close();
    }
}
