package io.jrdma.tool.pingpong;

import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.AddressVector;
import io.jrdma.ibverbs.ConnectOptions;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.PortAttributes;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code jrdma pingpong ud}: {@code ibv_ud_pingpong}, one UD queue pair with Q_Key 0x11111111 sending through an
 * address handle; messages fit the port's active MTU and every receive buffer starts with the 40-byte GRH.
 *
 * {@snippet class=io.jrdma.tool.pingpong.PingPongSnippets region=datagram}
 */
final class DatagramPingPong extends PingPong {
    static final int QKEY = 0x11111111;

    DatagramPingPong(PingPongOptions options, PrintStream out) {
        super(options, out);
    }

    @Override
    void createQueuePairs(PortAttributes port) throws RdmaException {
        int mtu = port.activeMtu().bytes();
        if (options.size() > mtu) {
            throw new IllegalArgumentException("pingpong ud: requested size larger than port MTU (" + mtu + ")");
        }
        QueuePair qp = own(pd.queuePair(QpType.UD).completionQueue(cq).capacity(1, options.rxDepth()).sge(1, 1)
                .create());
        qp.toInitDatagram(options.ibPort(), QKEY);
        queuePairs.add(qp);
    }

    @Override
    void connect(List<Endpoint> local, List<Endpoint> remote) throws RdmaException {
        QueuePair qp = queuePairs.getFirst();
        Endpoint peer = remote.getFirst();
        // UD's RTR and RTS take no path: only the state and the send PSN.
        ConnectOptions states = ConnectOptions.of(options.ibPort(), -1, options.mtu());
        qp.toReadyToReceive(null, states);
        qp.toReadyToSend(local.getFirst().psn(), states);
        AddressHandle ah = own(pd.createAddressHandle(AddressVector.to(peer, options.ibPort(), gidIndexTowards(peer))
                .withServiceLevel(options.serviceLevel())));
        send.datagram(ah, peer.qpn(), QKEY);
    }

    @Override
    int payloadOffset() {
        return AddressHandle.GRH_BYTES;
    }

    @Override
    boolean requiresLid() {
        return false;
    }

    /** ud_pingpong's "local address" line has a colon where the others have a comma. */
    @Override
    String localGidSeparator() {
        return ":";
    }
}
