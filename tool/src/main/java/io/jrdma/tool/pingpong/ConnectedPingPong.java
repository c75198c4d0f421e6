package io.jrdma.tool.pingpong;

import io.jrdma.ibverbs.ConnectOptions;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.PortAttributes;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code jrdma pingpong rc} and {@code uc}: {@code ibv_rc_pingpong} and {@code ibv_uc_pingpong}, one connected
 * queue pair with a receive queue of its own, no remote access, the C examples' timers and retries.
 *
 * {@snippet class=io.jrdma.tool.pingpong.PingPongSnippets region=connected}
 */
class ConnectedPingPong extends PingPong {
    private final QpType type;

    ConnectedPingPong(PingPongOptions options, PrintStream out, QpType type) {
        super(options, out);
        this.type = type;
    }

    /** Sizes the queue pair; the send queue holds the one SEND in flight. */
    QueuePair.Builder configure(QueuePair.Builder builder) {
        return builder.capacity(1, options.rxDepth());
    }

    @Override
    void createQueuePairs(PortAttributes port) throws RdmaException {
        for (int i = 0; i < options.queuePairs(); i++) {
            queuePairs.add(own(configure(pd.queuePair(type).completionQueue(cq).sge(1, 1)).create()));
        }
        for (QueuePair qp : queuePairs) {
            qp.toInit(connectOptions(-1));
        }
    }

    @Override
    void connect(List<Endpoint> local, List<Endpoint> remote) throws RdmaException {
        // srq_pingpong decides on the GRH by the first destination, for all of them.
        ConnectOptions path = connectOptions(gidIndexTowards(remote.getFirst()));
        for (int i = 0; i < queuePairs.size(); i++) {
            queuePairs.get(i).toReadyToReceive(remote.get(i), path);
            queuePairs.get(i).toReadyToSend(local.get(i).psn(), path);
        }
    }

    private ConnectOptions connectOptions(int gidIndex) {
        return ConnectOptions.of(options.ibPort(), gidIndex, options.mtu()).serviceLevel(options.serviceLevel())
                .remoteAccess();
    }
}
