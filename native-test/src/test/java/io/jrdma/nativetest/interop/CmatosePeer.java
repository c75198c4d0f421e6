package io.jrdma.nativetest.interop;

import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.PortSpace;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * The far side of rdma-core's {@code ucmatose} (cmatose.c): {@code connections} RC connections through the connection
 * manager (TCP port space, no private data, its default port 7471), then {@code count} sends of {@code size} bytes on
 * each, first from the server, then back from the client, then the server disconnects. The C program sends an
 * uninitialized buffer, so only counts, sizes and completion statuses can be checked; it exits 0 once every
 * connection was established and disconnected.
 */
final class CmatosePeer {
    private CmatosePeer() {
    }

    /**
     * {@code ucmatose} without {@code -s}: listens on {@code bind}, accepts {@code connections}, sends first.
     *
     * @param listening run once the server listens: the client may start then
     * @return what was exchanged
     * @throws AssertionError if a message is not {@code size} bytes
     * @throws Exception      if a connection-manager event or completion fails or does not come in time
     */
    static String server(InetSocketAddress bind, Runnable listening, int connections, int count, int size,
                         Duration timeout) throws Exception {
        return CloseStack.within(timeout, (r, deadline) -> {
            List<PeerNode> nodes = PeerConnections.acceptAll(r, PortSpace.TCP, bind, listening, connections, count,
                    id -> node(id, count, size), node -> ConnectionParameters.defaults(), deadline);
            for (PeerNode node : nodes) {
                node.id().await(deadline.left(), CmEventType.ESTABLISHED);
            }
            for (PeerNode node : nodes) {
                send(node, count, size, deadline);
            }
            for (PeerNode node : nodes) {
                node.awaitReceives(count, size, deadline, (wcs, i) -> { });
            }
            for (PeerNode node : nodes) {
                node.id().disconnect();
            }
            for (PeerNode node : nodes) {
                node.id().await(deadline.left(), CmEventType.DISCONNECTED);
            }
            return summary("server", connections, count, size);
        });
    }

    /**
     * {@code ucmatose -s}: connects {@code connections} times from {@code local} to {@code server}, receives first,
     * answers, then waits for the server to disconnect.
     *
     * @return what was exchanged
     * @throws AssertionError if a message is not {@code size} bytes
     * @throws Exception      if a connection-manager event (e.g. REJECTED while the server does not listen yet) or
     *                        completion fails or does not come in time
     */
    static String client(InetAddress local, InetSocketAddress server, int connections, int count, int size,
                         Duration timeout) throws Exception {
        return CloseStack.within(timeout, (r, deadline) -> {
            List<PeerNode> nodes = PeerConnections.connectAll(r, PortSpace.TCP, local, server, connections, count,
                    id -> node(id, count, size), deadline);
            for (PeerNode node : nodes) {
                node.id().await(deadline.left(), CmEventType.ESTABLISHED);
            }
            for (PeerNode node : nodes) {
                node.awaitReceives(count, size, deadline, (wcs, i) -> { });
            }
            for (PeerNode node : nodes) {
                node.postSends(message(node, size), count);
            }
            // cmatose's server disconnects once it received every message, which confirms the sends, as cmatose's
            // own client relies on: the ACK of a last send can be lost, and its retransmissions then meet a peer
            // that is gone.
            for (PeerNode node : nodes) {
                node.id().await(deadline.left(), CmEventType.DISCONNECTED);
                node.id().disconnect();
                node.awaitConfirmedSends(count, deadline);
            }
            return summary("client", connections, count, size);
        });
    }

    private static PeerNode node(CmId id, int count, int size) throws Exception {
        return PeerNode.on(id, QpType.RC, count, size, size, 0);
    }

    private static void send(PeerNode node, int count, int size, Deadline deadline) throws Exception {
        node.postSends(message(node, size), count);
        node.awaitSends(count, deadline);
    }

    private static SendWorkRequest message(PeerNode node, int size) {
        return new SendWorkRequest(1).opcode(SendOpcode.SEND).signaled(true).add(node.mr(), node.sendOffset(), size);
    }

    private static String summary(String role, int connections, int count, int size) {
        return "cmatose " + role + ": " + connections + " connections, " + count + " messages of " + size
                + " bytes each way on each";
    }
}
