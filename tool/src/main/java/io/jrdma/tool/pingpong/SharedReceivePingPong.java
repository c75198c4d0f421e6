package io.jrdma.tool.pingpong;

import io.jrdma.ibverbs.PortAttributes;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SharedReceiveQueue;

import java.io.PrintStream;

/**
 * {@code jrdma pingpong srq}: {@code ibv_srq_pingpong}, {@code -q} RC queue pairs (default 16) receiving through one
 * shared receive queue, each ping-ponging with its peer of the same index; -n counts the exchanges of all of them.
 *
 * {@snippet class=io.jrdma.tool.pingpong.PingPongSnippets region=shared-receive}
 */
final class SharedReceivePingPong extends ConnectedPingPong {
    private SharedReceiveQueue srq;

    SharedReceivePingPong(PingPongOptions options, PrintStream out) {
        super(options, out, QpType.RC);
    }

    @Override
    void createQueuePairs(PortAttributes port) throws RdmaException {
        srq = own(pd.createSharedReceiveQueue(options.rxDepth(), 1));
        super.createQueuePairs(port);
    }

    @Override
    QueuePair.Builder configure(QueuePair.Builder builder) {
        // The receive queue size is ignored with an SRQ; the builder only insists on a positive one.
        return builder.sharedReceiveQueue(srq).capacity(1, 1);
    }

    @Override
    void postReceive(ReceiveWorkRequest r) throws RdmaException {
        srq.postReceive(r);
    }

    /** srq_pingpong zeroes its buffer, so -c cannot find anything wrong; kept for byte-for-byte parity. */
    @Override
    byte initialFill() {
        return 0;
    }

    @Override
    int pollBatch() {
        return options.queuePairs() + options.rxDepth();
    }

    /** The C example always exchanges its whole table of destinations, unused ones zero. */
    @Override
    int handshakeMessages() {
        return PingPongOptions.MAX_QP;
    }
}
