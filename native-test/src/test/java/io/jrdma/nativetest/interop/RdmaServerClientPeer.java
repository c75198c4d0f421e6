package io.jrdma.nativetest.interop;

import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.rdmacm.AddressInfo;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;

/**
 * The far side of rdma-core's {@code rdma_server} and {@code rdma_client} (rdma_server.c, rdma_client.c): an RC
 * endpoint made by {@code rdma_getaddrinfo} and {@code rdma_create_ep} (both default to port 7471, the server to
 * 0.0.0.0), no private data; the client sends one 16-byte message, the server answers with one, each inline when the
 * queue pair can. Both send a static, hence zeroed, buffer: every received byte must be 0. Each C program exits 0
 * once its send and receive completed.
 */
final class RdmaServerClientPeer {
    /** The size of the one message each way. */
    static final int MESSAGE = 16;

    private RdmaServerClientPeer() {
    }

    /**
     * {@code rdma_server -s address -p port}: accepts one connection, receives, answers, disconnects.
     *
     * @param listening run once the server listens: the client may start then
     * @return what was exchanged
     * @throws AssertionError if the message is not 16 zero bytes
     * @throws Exception      if an event or completion fails or does not come in time
     */
    static String server(InetSocketAddress bind, Runnable listening, Duration timeout) throws Exception {
        return CloseStack.within(timeout, (r, deadline) -> {
            EventChannel events = r.add(EventChannel.create());
            CmId listener = r.add(CmId.createEndpoint(lookup(bind, true), events));
            listener.listen(0);
            listening.run();
            CmId id = r.add(listener.await(deadline.left(), CmEventType.CONNECT_REQUEST).id());
            PeerNode node = r.add(node(id));
            node.postReceives(1);
            id.accept(ConnectionParameters.defaults());
            id.await(deadline.left(), CmEventType.ESTABLISHED);
            receive(node, deadline);
            send(node, deadline);
            id.disconnect();
            id.await(deadline.left(), CmEventType.DISCONNECTED);
            return "rdma_server: received and sent " + MESSAGE + " zero bytes";
        });
    }

    /**
     * {@code rdma_client -s address -p port}: connects, sends, receives the answer, disconnects.
     *
     * @return what was exchanged
     * @throws AssertionError if the answer is not 16 zero bytes
     * @throws Exception      if an event (e.g. REJECTED while the server does not listen yet) or completion fails or
     *                        does not come in time
     */
    static String client(InetSocketAddress server, Duration timeout) throws Exception {
        return CloseStack.within(timeout, (r, deadline) -> {
            EventChannel events = r.add(EventChannel.create());
            CmId id = r.add(CmId.createEndpoint(lookup(server, false), events));
            PeerNode node = r.add(node(id));
            node.postReceives(1);
            id.connect(ConnectionParameters.defaults());
            id.await(deadline.left(), CmEventType.ESTABLISHED);
            send(node, deadline);
            receive(node, deadline);
            id.disconnect();
            id.await(deadline.left(), CmEventType.DISCONNECTED);
            return "rdma_client: sent and received " + MESSAGE + " zero bytes";
        });
    }

    private static AddressInfo lookup(InetSocketAddress address, boolean passive) throws Exception {
        return AddressInfo.lookup(address.getAddress().getHostAddress(), Integer.toString(address.getPort()), passive,
                PortSpace.TCP).getFirst();
    }

    private static PeerNode node(CmId id) throws Exception {
        return PeerNode.on(id, QpType.RC, 1, MESSAGE, MESSAGE, MESSAGE);
    }

    private static void send(PeerNode node, Deadline deadline) throws Exception {
        node.mr().segment().asSlice(node.sendOffset(), MESSAGE).fill((byte) 0);
        node.postSends(new SendWorkRequest(1).opcode(SendOpcode.SEND).signaled(true)
                .inline(node.qp().capabilities().maxInlineData() >= MESSAGE)
                .add(node.mr(), node.sendOffset(), MESSAGE), 1);
        node.awaitSends(1, deadline);
    }

    private static void receive(PeerNode node, Deadline deadline) throws Exception {
        node.awaitReceives(1, MESSAGE, deadline, (wcs, i) -> {
            MemorySegment got = node.slot(wcs.id(i));
            if (got.mismatch(MemorySegment.ofArray(new byte[MESSAGE])) >= 0) {
                throw new AssertionError("the message is not " + MESSAGE + " zero bytes: "
                        + HexFormat.of().formatHex(got.toArray(ValueLayout.JAVA_BYTE)));
            }
        });
    }
}
