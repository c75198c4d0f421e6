package io.jrdma.tool.perf;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ThreadConfinement;
import io.jrdma.tool.Resources;

import java.util.function.UnaryOperator;

/**
 * The verbs objects of one benchmark connection on a {@link PerfLink}: a protection domain, a send and a receive
 * completion queue, an RC queue pair the link connects, and one memory region that ends in a control area of
 * {@link #CONTROL_BYTES} bytes at {@link #control()}, which the peer RDMA-writes into.
 *
 * <p>One thread posts and polls, as in perftest: the queues are confined and need no atomics on the data path.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=resources}
 */
final class PerfResources implements AutoCloseable {
    /** The size of the control area. */
    static final int CONTROL_BYTES = 128;

    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final MemoryRegion mr;
    private final long control;

    private PerfResources(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq, QueuePair qp,
                          MemoryRegion mr, long control) {
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.qp = qp;
        this.mr = mr;
        this.control = control;
    }

    /**
     * Creates the objects on the link's device, closing those already made if one fails.
     *
     * @param sendCqDepth entries of the send completion queue
     * @param recvCqDepth entries of the receive completion queue
     * @param shape       the queue pair's capacities, on a builder with the queues and confinement set
     * @param control     the bytes before the control area: where it starts
     * @param access      the memory region's access
     */
    static PerfResources open(PerfLink link, int sendCqDepth, int recvCqDepth, UnaryOperator<QueuePair.Builder> shape,
                              long control, Access... access) throws Exception {
        Context ctx = link.context();
        ProtectionDomain pd = ctx.allocateProtectionDomain();
        CompletionQueue sendCq = null;
        CompletionQueue recvCq = null;
        QueuePair qp = null;
        try {
            sendCq = ctx.completionQueue(sendCqDepth).confinement(ThreadConfinement.CONFINED).create();
            recvCq = ctx.completionQueue(recvCqDepth).confinement(ThreadConfinement.CONFINED).create();
            qp = link.createQueuePair(shape.apply(pd.queuePair(QpType.RC).confinement(ThreadConfinement.CONFINED)
                    .sendQueue(sendCq).receiveQueue(recvCq)));
            MemoryRegion mr = pd.allocate(control + CONTROL_BYTES, access);
            return new PerfResources(pd, sendCq, recvCq, qp, mr, control);
        } catch (Exception e) {
            try {
                Resources.closeAll(qp, sendCq, recvCq, pd);
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    CompletionQueue sendCq() {
        return sendCq;
    }

    CompletionQueue recvCq() {
        return recvCq;
    }

    QueuePair qp() {
        return qp;
    }

    MemoryRegion mr() {
        return mr;
    }

    /** The offset of the control area in {@link #mr()}. */
    long control() {
        return control;
    }

    @Override
    public void close() throws Exception {
        Resources.closeAll(qp, mr, sendCq, recvCq, pd);
    }
}
