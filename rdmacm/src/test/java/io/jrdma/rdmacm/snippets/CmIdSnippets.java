package io.jrdma.rdmacm.snippets;

import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Ece;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpState;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.rdmacm.AddressInfo;
import io.jrdma.rdmacm.CmEvent;
import io.jrdma.rdmacm.CmEventException;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PathRecord;
import io.jrdma.rdmacm.PortSpace;
import io.jrdma.rdmacm.UdParameters;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** Connection-manager ids and their events. */
final class CmIdSnippets {

    void activeSide(EventChannel channel) throws RdmaException, InterruptedException {
        // @start region="active"
        CmId id = CmId.create(channel, PortSpace.TCP);
        id.resolve(new InetSocketAddress("10.0.0.2", 7471), Duration.ofSeconds(2));   // address, then route
        ProtectionDomain pd = id.context().allocateProtectionDomain();
        CompletionQueue cq = id.context().createCompletionQueue(64);
        QueuePair qp = id.createQueuePair(pd.queuePair(QpType.RC).completionQueue(cq));
        id.connect(ConnectionParameters.defaults());
        id.await(Duration.ofSeconds(5), CmEventType.ESTABLISHED);
        // ... post on qp; at the end close qp, cq, pd, then the id, then the channel ...
        // @end
    }

    void path(EventChannel channel, InetSocketAddress peer) throws RdmaException, InterruptedException {
        // @start region="path"
        PathRecord path;
        try (CmId first = CmId.create(channel, PortSpace.TCP)) {
            first.resolve(peer, Duration.ofSeconds(2));                       // address, then route
            path = first.paths().getFirst();
        }
        CmId next = CmId.create(channel, PortSpace.TCP);
        next.resolveAddress(null, peer, Duration.ofSeconds(2));
        next.await(Duration.ofSeconds(2), CmEventType.ADDR_RESOLVED);
        next.setPath(path);                                                  // the route, without resolving it
        next.await(Duration.ofSeconds(2), CmEventType.ROUTE_RESOLVED);
        // ... create the queue pair and connect as usual ...
        // @end
    }

    void ownQueuePair(CmId id, ProtectionDomain pd, CompletionQueue cq) throws RdmaException, InterruptedException {
        // @start region="own-queue-pair"
        // Active side, resolved; pd and cq come from id.context(). The queue pair is not the id's: ibverbs made it.
        QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq).create();
        id.connect(ConnectionParameters.defaults().withQpNumber(qp.qpNumber()));
        id.await(Duration.ofSeconds(5), CmEventType.CONNECT_RESPONSE);   // the peer accepted; bring the QP up
        for (QpState state : List.of(QpState.INIT, QpState.RTR, QpState.RTS)) {
            qp.modify(id.queuePairAttributes(state));
        }
        id.establish();                                   // tells the peer, whose id reports ESTABLISHED
        // The passive side does the same three steps after CONNECT_REQUEST, then accepts with withQpNumber(...).
        // @end
    }

    void ece(CmId active, QueuePair activeQp, CmId passive, QueuePair passiveQp) throws RdmaException {
        // @start region="ece"
        // Active side, before connect: offer what its queue pair supports (EOPNOTSUPP where the device has no ECE).
        active.setLocalEce(activeQp.ece());
        // Passive side, after CONNECT_REQUEST and before accept: take the offer, answer with what its provider took.
        Ece offer = passive.remoteEce();
        if (offer.vendorId() == passiveQp.ece().vendorId()) {
            passive.setLocalEce(passiveQp.setEce(offer));
        }
        // Active side, after CONNECT_RESPONSE and before RTR: use the answer.
        Ece answer = active.remoteEce();
        if (answer.vendorId() != 0) {
            activeQp.setEce(answer);
        }
        // @end
    }

    void eventChannel() throws RdmaException, InterruptedException {
        // @start region="event-channel"
        try (EventChannel channel = EventChannel.create();
             CmId id = CmId.create(channel, PortSpace.TCP)) {
            id.resolve(new InetSocketAddress("10.0.0.2", 7471), Duration.ofSeconds(2));
            // ...
        }   // the id closes before its channel
        // @end
    }

    void passiveSide(EventChannel channel, CmId listening) throws RdmaException, InterruptedException {
        // @start region="cm-event"
        CmEvent e = channel.poll(Duration.ofSeconds(1));   // null on timeout
        if (e != null && e.type() == CmEventType.CONNECT_REQUEST) {
            CmId id = e.id();                               // the new connection's id, on the same channel
            // ... create its queue pair with id.createQueuePair(...) ...
            id.accept(ConnectionParameters.defaults());
        }
        // @end
    }

    void eventType(CmEvent event) {
        // @start region="event-type"
        if (event.type() == CmEventType.REJECTED) {
            System.err.println("the peer said no: " + event.rejectReason());
        }
        // @end
    }

    void failure(CmId id, ConnectionParameters params, Duration timeout) throws RdmaException, InterruptedException {
        // @start region="event-exception"
        try {
            id.connect(params);
            id.await(timeout, CmEventType.ESTABLISHED);
        } catch (CmEventException e) {
            if (e.event() != null && e.event().type() == CmEventType.REJECTED) {
                System.err.println("rejected: " + e.event().rejectReason());
            } else {
                throw e;
            }
        }
        // @end
    }

    void parameters(CmId id) throws RdmaException {
        // @start region="parameters"
        id.connect(ConnectionParameters.defaults()
                .withPrivateData("hello".getBytes(StandardCharsets.UTF_8))   // the peer's CONNECT_REQUEST carries it
                .withResources(4, 4));                                        // 4 RDMA READs in flight each way
        // @end
    }

    void portSpace(EventChannel channel) throws RdmaException {
        // @start region="port-space"
        CmId id = CmId.create(channel, PortSpace.UDP);   // a UD queue pair will go with it
        // @end
    }

    void addressInfo(EventChannel channel) throws RdmaException {
        // @start region="address-info"
        AddressInfo info = AddressInfo.lookup("10.0.0.2", "7471", false, PortSpace.TCP).getFirst();
        CmId id = CmId.createEndpoint(info, channel);      // resolved: create its queue pair, then connect
        // @end
    }

    void datagram(CmId id, ProtectionDomain pd, SendWorkRequest wr) throws RdmaException, InterruptedException {
        // @start region="datagram"
        // After id.connect(...) on the UDP port space, the peer's answer names its queue pair:
        UdParameters ud = id.await(Duration.ofSeconds(5), CmEventType.ESTABLISHED).datagram();
        AddressHandle ah = ud.createAddressHandle(pd);
        wr.datagram(ah, ud.qpNumber(), ud.qkey());
        // @end
    }
}
