package io.jrdma.nativetest.interop;

import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.PortSpace;
import io.jrdma.rdmacm.UdParameters;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The far side of rdma-core's {@code udaddy} (udaddy.c): UD "connections" through the connection manager (UDP port
 * space, its default port 7174): the client resolves the server's queue pair (a service-ID request answered by the
 * accept), sends {@code count} datagrams of {@code size} bytes on each, and the server answers each of its peers with
 * as many, addressed by a handle made from the first datagram's completion and GRH. Every datagram is a send with
 * immediate data carrying the sender's queue pair number; the payload is an uninitialized buffer, so counts, sizes,
 * and the immediate against the completion's source queue pair are what can be checked. The C program exits 0 once it
 * received all it waits for.
 */
final class UdaddyPeer {
    private UdaddyPeer() {
    }

    /**
     * {@code udaddy} without {@code -s}: listens on {@code bind}, accepts {@code connections} requests, receives
     * {@code count} datagrams on each, answers each sender with as many.
     *
     * @param listening run once the server listens: the client may start then
     * @return what was exchanged
     * @throws AssertionError if a datagram has the wrong size, no immediate, or one that does not name its sender
     * @throws Exception      if an event or completion fails or does not come in time
     */
    static String server(InetSocketAddress bind, Runnable listening, int connections, int count, int size,
                         Duration timeout) throws Exception {
        return CloseStack.within(timeout, (r, deadline) -> {
            // A UD accept is the service-ID reply: it tells the client this queue pair, and no ESTABLISHED follows.
            List<PeerNode> nodes = PeerConnections.acceptAll(r, PortSpace.UDP, bind, listening, connections, count,
                    id -> node(id, count, size),
                    node -> ConnectionParameters.defaults().withQpNumber(node.qp().qpNumber()), deadline);
            for (PeerNode node : nodes) {
                ReplyAddress sender = new ReplyAddress(node);
                node.awaitReceives(count, AddressHandle.GRH_BYTES + size, deadline, sender);
                send(node, sender.handle, sender.qpNumber, node.qp().query().qkey(), count, size, deadline);
            }
            return summary("server", connections, count, size);
        });
    }

    /**
     * {@code udaddy -s -b}: resolves {@code connections} paths from {@code local} to {@code server}, sends
     * {@code count} datagrams on each, and receives as many back from the server's queue pair.
     *
     * @return what was exchanged
     * @throws AssertionError if a datagram has the wrong size or does not come from the server's queue pair
     * @throws Exception      if an event (e.g. UNREACHABLE while the server does not listen yet) or completion fails
     *                        or does not come in time
     */
    static String client(InetAddress local, InetSocketAddress server, int connections, int count, int size,
                         Duration timeout) throws Exception {
        return CloseStack.within(timeout, (r, deadline) -> {
            List<PeerNode> nodes = PeerConnections.connectAll(r, PortSpace.UDP, local, server, connections, count,
                    id -> node(id, count, size), deadline);
            List<Integer> servers = new ArrayList<>();
            for (PeerNode node : nodes) {
                UdParameters ud = node.id().await(deadline.left(), CmEventType.ESTABLISHED).datagram();
                AddressHandle ah = node.keep(ud.createAddressHandle(node.pd()));
                send(node, ah, ud.qpNumber(), ud.qkey(), count, size, deadline);
                servers.add(ud.qpNumber());
            }
            for (int c = 0; c < connections; c++) {
                PeerNode node = nodes.get(c);
                int serverQp = servers.get(c);
                node.awaitReceives(count, AddressHandle.GRH_BYTES + size, deadline, (wcs, i) -> {
                    int from = from(wcs, i);
                    if (from != serverQp) {
                        throw new AssertionError(node.id() + ": a datagram from QP " + from + ", not the server's "
                                + serverQp);
                    }
                });
            }
            return summary("client", connections, count, size);
        });
    }

    private static PeerNode node(CmId id, int count, int size) throws Exception {
        return PeerNode.on(id, QpType.UD, count, AddressHandle.GRH_BYTES + size, size, 0);
    }

    /** Sends {@code count} datagrams to {@code qpNumber}, each with this queue pair's number as immediate data. */
    static void send(PeerNode node, AddressHandle ah, int qpNumber, int qkey, int count, int size,
                     Deadline deadline) throws Exception {
        node.postSends(new SendWorkRequest(1).opcode(SendOpcode.SEND_WITH_IMM).immediate(node.qp().qpNumber())
                .signaled(true).datagram(ah, qpNumber, qkey).add(node.mr(), node.sendOffset(), size), count);
        node.awaitSends(count, deadline);
    }

    /**
     * The sending queue pair of a received datagram, which the examples put in its immediate data.
     *
     * @throws AssertionError if there is no immediate, or it is not the completion's source queue pair
     */
    static int from(WorkCompletions wcs, int i) {
        if (!wcs.hasImmediate(i) || wcs.immediate(i) != wcs.sourceQp(i)) {
            throw new AssertionError("a datagram from QP " + wcs.sourceQp(i) + " whose immediate data does not "
                    + "name it: " + (wcs.hasImmediate(i) ? wcs.immediate(i) : "none"));
        }
        return wcs.sourceQp(i);
    }

    /** Where the first datagram came from, as udaddy's server learns it; later ones must come from there too. */
    private static final class ReplyAddress implements PeerNode.CompletionCheck {
        private final PeerNode node;
        private AddressHandle handle;
        private int qpNumber;

        ReplyAddress(PeerNode node) {
            this.node = node;
        }

        @Override
        public void check(WorkCompletions wcs, int i) throws Exception {
            int sender = from(wcs, i);
            if (handle == null) {
                handle = node.keep(node.pd().createAddressHandle(wcs, i,
                        node.slot(wcs.id(i)).asSlice(0, AddressHandle.GRH_BYTES), node.id().portNumber()));
                qpNumber = sender;
            } else if (sender != qpNumber) {
                throw new AssertionError(node.id() + ": datagrams from QP " + qpNumber + " and " + sender);
            }
        }
    }

    private static String summary(String role, int connections, int count, int size) {
        return "udaddy " + role + ": " + connections + " paths, " + count + " datagrams of " + size
                + " bytes each way on each";
    }
}
