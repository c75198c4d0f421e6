package io.jrdma.ibverbs.snippets;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.AddressVector;
import io.jrdma.ibverbs.AlternatePath;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.ConnectOptions;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Ece;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.ExtendedPost;
import io.jrdma.ibverbs.GlobalRoute;
import io.jrdma.ibverbs.MigrationState;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.Mtu;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpAttribute;
import io.jrdma.ibverbs.QpAttributes;
import io.jrdma.ibverbs.QpState;
import io.jrdma.ibverbs.QpTransitions;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.SharedReceiveQueue;
import io.jrdma.ibverbs.ThreadConfinement;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/** Queue pairs: building, connecting, posting. */
final class QueuePairSnippets {
    private static final int QKEY = 0x11111111;

    void queuePair(ProtectionDomain pd, CompletionQueue cq, MemoryRegion mr, Endpoint peer, int psn, int gidIndex)
            throws RdmaException {
        // @start region="queue-pair"
        QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq).capacity(64, 64).create();
        // psn: the first PSN this side sends, as advertised in its own endpoint (qp.endpoint(1, gidIndex, psn))
        qp.connect(peer, psn, ConnectOptions.of(1, gidIndex, Mtu.MTU_1024));   // INIT, RTR, RTS
        qp.postSend(new SendWorkRequest(1).opcode(SendOpcode.SEND).signaled(true).add(mr, 0, 64));
        // @end
    }

    void builder(ProtectionDomain pd, CompletionQueue scq, CompletionQueue rcq) throws RdmaException {
        // @start region="builder"
        QueuePair ud = pd.queuePair(QpType.UD).sendQueue(scq).receiveQueue(rcq).capacity(128, 512).sge(1, 1).create();
        // @end
    }

    void qpType(ProtectionDomain pd, CompletionQueue cq) throws RdmaException {
        // @start region="qp-type"
        QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq).create();
        // @end
    }

    void confined(Context ctx, ProtectionDomain pd) throws RdmaException {
        // @start region="confined"
        // On the thread that will post and poll (its owner from now on):
        CompletionQueue cq = ctx.completionQueue(256).confinement(ThreadConfinement.CONFINED).create();
        QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq).confinement(ThreadConfinement.CONFINED).create();
        // Any other thread's qp.postSend(...) or qp.close() now throws WrongThreadException.
        // @end
    }

    void confinement(ProtectionDomain pd, CompletionQueue cq) throws RdmaException {
        // @start region="confinement"
        QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq).confinement(ThreadConfinement.CONFINED).create();
        assert qp.confinement() == ThreadConfinement.CONFINED;
        // @end
    }

    void connectOptions(QueuePair qp, Endpoint peer, int psn) throws RdmaException {
        // @start region="connect-options"
        ConnectOptions options = ConnectOptions.of(1, 1, Mtu.MTU_1024)   // port 1, GID index 1
                .maxReadAtomic(4)                                       // 4 RDMA READs in flight each way
                .timeout(14);                                           // ACK timeout 4.096 us * 2^14, about 67 ms
        qp.connect(peer, psn, options);
        // @end
    }

    void endpoint(QueuePair qp, int gidIndex, OutputStream out, DataInputStream in) throws IOException {
        // @start region="endpoint"
        int psn = ThreadLocalRandom.current().nextInt(1 << 24);
        Endpoint mine = qp.endpoint(1, gidIndex, psn);
        out.write(mine.toBytes());
        Endpoint theirs = Endpoint.fromBytes(in.readNBytes(Endpoint.BYTES));
        qp.connect(theirs, psn, ConnectOptions.of(1, gidIndex, Mtu.MTU_1024));
        // @end
    }

    void state(QueuePair qp, Endpoint peer, int psn, ConnectOptions options) throws RdmaException {
        // @start region="qp-state"
        if (qp.state() == QpState.ERR) {
            qp.reset();                        // flushed and empty: connect again
            qp.connect(peer, psn, options);
        }
        // @end
    }

    void attributes(QueuePair qp) throws RdmaException {
        // @start region="qp-attributes"
        QpAttributes a = qp.query();
        System.out.println(a.state() + " to qpn " + a.destQpNumber() + ", MTU " + a.pathMtu().bytes());
        // @end
    }

    void modify(QueuePair qp, Endpoint peer, int gidIndex, AddressVector backup) throws RdmaException {
        // @start region="qp-modify"
        // INIT → RTR by hand: every attribute named, the hop limit and traffic class of a routed RoCE v2 network.
        AddressVector path = AddressVector.to(peer, 1, gidIndex).withServiceLevel(3);
        path = path.withGlobalRoute(path.globalRoute().withHopLimit(64).withTrafficClass(106));
        qp.modify(QpAttributes.builder().state(QpState.RTR).addressVector(path).pathMtu(Mtu.MTU_1024)
                .destQpNumber(peer.qpn()).receivePsn(peer.psn()).maxDestReadAtomic(4).minRnrTimer(12)
                .remoteAccess(Access.LOCAL_WRITE, Access.REMOTE_WRITE).build());
        // Later, in RTS: load an alternate path and arm it.
        qp.modify(QpAttributes.builder().alternatePath(new AlternatePath(backup, 0, 1, 14))
                .migrationState(MigrationState.REARM).build());
        // @end
    }

    void ece(QueuePair qp, Ece peer) throws RdmaException {
        // @start region="ece"
        Ece offer = qp.ece();             // what this queue pair supports; EOPNOTSUPP on a device without ECE
        // ... the connection manager carries the offer to the peer, and the peer's to this side ...
        if (peer.vendorId() == offer.vendorId()) {
            Ece accepted = qp.setEce(peer);   // before RTR; what the provider took, for the answer to the peer
        }
        // @end
    }

    void transitions() {
        // @start region="qp-transitions"
        QpTransitions.Rule rtr = QpTransitions.rule(QpType.RC, QpState.INIT, QpState.RTR).orElseThrow();
        Set<QpAttribute> mustGive = rtr.required();   // AV, PATH_MTU, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER, ...
        // Throws IllegalArgumentException: "RC INIT → RTR is missing [AV, ...]"
        QpTransitions.check(QpType.RC, QpState.INIT, QpState.RTR, Set.of(QpAttribute.STATE, QpAttribute.PATH_MTU));
        // @end
    }

    void addressVector(ProtectionDomain pd, Endpoint peer, int gidIndex) throws RdmaException {
        // @start region="address-vector"
        GlobalRoute grh = GlobalRoute.to(peer.gid(), gidIndex)   // hop limit 64
                .withTrafficClass(106).withFlowLabel(0x12345);
        AddressHandle ah = pd.createAddressHandle(new AddressVector(peer.lid(), 0, 0, 0, 1, grh));
        // @end
    }

    void sendRequest(QueuePair qp, MemoryRegion mr, long peerAddress, int peerRkey) throws RdmaException {
        // @start region="send-request"
        SendWorkRequest wr = new SendWorkRequest(1);       // once, then reused for every post
        wr.reset().id(7).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                .add(mr, 0, 64).rdma(peerAddress, peerRkey);
        qp.postSend(wr);
        // @end
    }

    void sendOpcode(SendWorkRequest wr, long remoteAddress, int rkey) {
        // @start region="send-opcode"
        wr.opcode(SendOpcode.RDMA_WRITE).rdma(remoteAddress, rkey);
        // @end
    }

    void receiveRequest(QueuePair qp, MemoryRegion mr) throws RdmaException {
        // @start region="receive-request"
        ReceiveWorkRequest rr = new ReceiveWorkRequest(1);
        qp.postReceive(rr.reset().id(1).add(mr, 0, 4096));   // mr was registered with LOCAL_WRITE
        // @end
    }

    void sharedReceiveQueue(ProtectionDomain pd, CompletionQueue cq, MemoryRegion mr) throws RdmaException {
        // @start region="srq"
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(256, 1);
        QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq).sharedReceiveQueue(srq).create();
        ReceiveWorkRequest rr = new ReceiveWorkRequest(1);
        srq.postReceive(rr.reset().id(1).add(mr, 0, 4096));
        srq.armLimit(16);   // an SRQ_LIMIT_REACHED async event when fewer than 16 receives are left
        // @end
    }

    void resizeSharedReceiveQueue(SharedReceiveQueue srq) throws RdmaException {
        // @start region="srq-resize"
        int size = srq.resize(1024);   // the receives posted stay; room for at least 1024 now
        // @end
    }

    void sharedReceiveQueueEx(ProtectionDomain pd, CompletionQueue cq) throws RdmaException {
        // @start region="srq-ex"
        SharedReceiveQueue srq = pd.sharedReceiveQueue(256, 1)
                .completionQueue(cq)                      // ibv_create_srq_ex
                .create();
        // @end
    }

    void addressHandle(ProtectionDomain pd, QueuePair qp, MemoryRegion mr, Endpoint peer, int gidIndex)
            throws RdmaException {
        // @start region="address-handle"
        AddressHandle ah = pd.createAddressHandle(peer, 1, gidIndex);       // from the peer's Endpoint
        SendWorkRequest wr = new SendWorkRequest(1);
        qp.postSend(wr.reset().opcode(SendOpcode.SEND).signaled(true).add(mr, 0, 64).datagram(ah, peer.qpn(), QKEY));
        // @end
    }

    void extendedPost(ProtectionDomain pd, CompletionQueue cq, MemoryRegion mr, long peerAddress, int peerRkey)
            throws RdmaException {
        // @start region="extended-post"
        QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq)
                .extendedSendOps(SendOpcode.RDMA_WRITE, SendOpcode.SEND).create();
        // ... connect it ...
        ExtendedPost post = qp.extendedPost();
        post.start();
        post.id(1).signaled(true).rdmaWrite(peerRkey, peerAddress).sge(mr, 0, 4096);
        post.id(2).signaled(true).send().sge(mr, 4096, 64);
        post.complete();                          // posts both, or none
        // @end
    }
}
