package io.jrdma.nativetest.interop;

import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.QpType;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;
import io.jrdma.rdmacm.UdParameters;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The far side of rdma-core's {@code mckey} (mckey.c) with one queue pair: both sides bind to {@code local}
 * ({@code -b}), resolve and join the IP multicast group ({@code -m}, UDP port space); the sender ({@code -s}) waits
 * for the receivers to join (mckey sleeps 3 s), then sends {@code count} datagrams of {@code size} bytes to the group,
 * each a send with immediate data carrying its queue pair number. The payload is an uninitialized buffer: counts,
 * sizes and the immediate against the source queue pair are what can be checked. A receiving mckey exits 0 once it
 * got {@code count} completions; it waits for them forever.
 */
final class MckeyPeer {
    /** The queue pair number a multicast join's UD parameters give: the group, not one queue pair. */
    private static final int MULTICAST_QPN = 0xffffff;

    private MckeyPeer() {
    }

    /**
     * {@code mckey -m group -b local}: joins and receives {@code count} datagrams, all from one sender.
     *
     * @param joined run once the group is joined and the receives are posted: the sender may start then
     * @return what was received
     * @throws AssertionError if a datagram has the wrong size, or its immediate or sender differs
     * @throws Exception      if the join or a completion fails or does not come in time
     */
    static String receiver(InetAddress local, InetAddress group, int count, int size, Runnable joined,
                           Duration timeout) throws Exception {
        return CloseStack.within(timeout, (r, deadline) -> {
            PeerNode node = join(r, local, group, count, size, true, deadline).node;
            joined.run();
            int[] sender = {-1};
            node.awaitReceives(count, AddressHandle.GRH_BYTES + size, deadline, (wcs, i) -> {
                int from = UdaddyPeer.from(wcs, i);
                if (sender[0] >= 0 && from != sender[0]) {
                    throw new AssertionError("multicast datagrams from QP " + sender[0] + " and " + from);
                }
                sender[0] = from;
            });
            return "mckey receiver: " + count + " datagrams of " + size + " bytes to " + group.getHostAddress()
                    + " from QP " + sender[0];
        });
    }

    /**
     * {@code mckey -m group -b local -s}: joins, waits {@code settle} for the receivers to join, sends {@code count}
     * datagrams to the group.
     *
     * @return what was sent
     * @throws Exception if the join or a send fails or does not complete in time
     */
    static String sender(InetAddress local, InetAddress group, int count, int size, Duration settle,
                         Duration timeout) throws Exception {
        return CloseStack.within(timeout, (r, deadline) -> {
            Membership m = join(r, local, group, count, size, false, deadline);
            AddressHandle ah = m.node.keep(m.group.createAddressHandle(m.node.pd()));
            Thread.sleep(settle);
            UdaddyPeer.send(m.node, ah, m.group.qpNumber(), m.group.qkey(), count, size, deadline);
            return "mckey sender: " + count + " datagrams of " + size + " bytes to " + group.getHostAddress();
        });
    }

    private record Membership(PeerNode node, UdParameters group) {
    }

    /**
     * Resolves and joins {@code group} on a new id with a UD queue pair for {@code count} datagrams of {@code size}
     * bytes, its receives posted if {@code receiving}; leaves the group when {@code r} closes.
     */
    private static Membership join(CloseStack r, InetAddress local, InetAddress group, int count, int size,
                                   boolean receiving, Deadline deadline) throws Exception {
        EventChannel events = r.add(EventChannel.create());
        CmId id = r.add(CmId.create(events, PortSpace.UDP));
        InetSocketAddress groupAddress = new InetSocketAddress(group, 0);
        id.bind(new InetSocketAddress(local, 0));
        id.resolveAddress(new InetSocketAddress(local, 0), groupAddress, deadline.left());
        id.await(deadline.left(), CmEventType.ADDR_RESOLVED);
        PeerNode node = r.add(receiving ? PeerNode.on(id, QpType.UD, count, AddressHandle.GRH_BYTES + size, 0, 0)
                : PeerNode.on(id, QpType.UD, count, 0, size, 0));
        if (receiving) {
            node.postReceives(count);
        }
        id.joinMulticast(groupAddress);
        UdParameters joined = id.await(deadline.left(), CmEventType.MULTICAST_JOIN).datagram();
        r.add(() -> id.leaveMulticast(groupAddress));
        if (joined.qpNumber() != MULTICAST_QPN) {
            throw new AssertionError("joining " + group + " gave QP number " + joined.qpNumber());
        }
        return new Membership(node, joined);
    }
}
