package io.jrdma.nativetest.interop;

import io.jrdma.rdmacm.CmEvent;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** How the rdmacm examples with several connections start them, on either side; all they open closes with the stack. */
final class PeerConnections {
    private PeerConnections() {
    }

    /**
     * The server's start: listens on {@code bind}, runs {@code listening}, and for each of {@code connections}
     * requests makes a node, posts {@code receives} receives and accepts with what {@code accept} gives for the node.
     */
    static List<PeerNode> acceptAll(CloseStack r, PortSpace space, InetSocketAddress bind, Runnable listening,
                                    int connections, int receives, PeerNode.Factory make,
                                    Function<PeerNode, ConnectionParameters> accept, Deadline deadline)
            throws Exception {
        EventChannel events = r.add(EventChannel.create());
        CmId listener = r.add(CmId.create(events, space));
        listener.bind(bind);
        listener.listen(0);
        listening.run();
        List<PeerNode> nodes = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            CmEvent request = listener.await(deadline.left(), CmEventType.CONNECT_REQUEST);
            PeerNode node = r.add(make.on(r.add(request.id())));
            node.postReceives(receives);
            node.id().accept(accept.apply(node));
            nodes.add(node);
        }
        return nodes;
    }

    /**
     * The client's start: {@code connections} ids resolved from {@code local} to {@code server}, each with a node
     * whose {@code receives} are posted before it connects.
     */
    static List<PeerNode> connectAll(CloseStack r, PortSpace space, InetAddress local, InetSocketAddress server,
                                     int connections, int receives, PeerNode.Factory make, Deadline deadline)
            throws Exception {
        EventChannel events = r.add(EventChannel.create());
        List<PeerNode> nodes = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            CmId id = r.add(CmId.create(events, space));
            resolve(id, local, server, deadline);
            PeerNode node = r.add(make.on(id));
            node.postReceives(receives);
            id.connect(ConnectionParameters.defaults());
            nodes.add(node);
        }
        return nodes;
    }

    /**
     * Resolves {@code id}'s address and route to {@code remote} from {@code local}, as the examples' clients do
     * with {@code -b}: without a source, Soft-RoCE may pick a GID whose datagrams the far side drops.
     */
    static void resolve(CmId id, InetAddress local, InetSocketAddress remote, Deadline deadline) throws Exception {
        id.resolveAddress(new InetSocketAddress(local, 0), remote, deadline.left());
        id.await(deadline.left(), CmEventType.ADDR_RESOLVED);
        id.resolveRoute(deadline.left());
        id.await(deadline.left(), CmEventType.ROUTE_RESOLVED);
    }
}
