package io.jrdma.tool.perf;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.DeviceAttributes;
import io.jrdma.ibverbs.LinkLayer;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.rdmacm.CmEvent;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * {@code jrdma perf -R}: rdma_cm picks the device by IP address and moves the queue pairs through their states; the
 * {@link PerfPeer}s travel as the private data of the connect request and of the accept. The client disconnects to
 * finish; the server waits for that.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=cm-link}
 */
final class CmPerfLink implements PerfLink {
    private static final Duration RESOLVE = Duration.ofSeconds(2);
    private static final Duration STEP = Duration.ofSeconds(30);
    private static final Duration FOREVER = Duration.ofDays(365);
    private static final int MAX_READ_ATOMIC = 16;

    private final PerfOptions options;
    private final EventChannel events;
    private final CmId listener;
    private final CmId id;
    private final byte[] request;

    private CmPerfLink(PerfOptions options, EventChannel events, CmId listener, CmId id, byte[] request) {
        this.options = options;
        this.events = events;
        this.listener = listener;
        this.id = id;
        this.request = request;
    }

    static CmPerfLink open(PerfOptions options) throws Exception {
        EventChannel events = EventChannel.create();
        CmId first = null;
        try {
            first = CmId.create(events, PortSpace.TCP);
            if (options.client()) {
                first.resolve(new InetSocketAddress(InetAddress.getByName(options.server()), options.tcpPort()),
                        RESOLVE);
                return new CmPerfLink(options, events, null, first, null);
            }
            first.setReuseAddress(true);
            first.bind(new InetSocketAddress(options.tcpPort()));
            first.listen(1);
            CmEvent e = first.await(FOREVER, CmEventType.CONNECT_REQUEST);
            return new CmPerfLink(options, events, first, e.id(), e.privateData());
        } catch (Exception e) {
            if (first != null) {
                first.close();
            }
            events.close();
            throw e;
        }
    }

    @Override
    public Context context() {
        return id.context();
    }

    @Override
    public String linkType() {
        try {
            return id.context().queryPort(id.portNumber()).linkLayer() == LinkLayer.ETHERNET ? "Ethernet" : "IB";
        } catch (Exception e) {
            return "unknown";
        }
    }

    @Override
    public int gidIndex() {
        return -1;
    }

    @Override
    public QueuePair createQueuePair(QueuePair.Builder builder) throws Exception {
        return id.createQueuePair(builder);
    }

    @Override
    public PerfPeer connect(QueuePair qp, PerfPeer mine) throws Exception {
        DeviceAttributes device = id.context().queryDevice();
        int depth = Math.max(1, Math.min(MAX_READ_ATOMIC, Math.min(device.maxQpRdAtom(), device.maxQpInitRdAtom())));
        ConnectionParameters parameters = ConnectionParameters.defaults().withResources(depth, depth)
                .withRnrRetryCount(7).withPrivateData(mine.toBytes());
        if (options.client()) {
            id.connect(parameters);
            CmEvent e = id.await(STEP, CmEventType.ESTABLISHED);
            return PerfPeer.fromBytes(e.privateData(), mine.setupHash(), false);
        }
        PerfPeer theirs;
        try {
            theirs = PerfPeer.fromBytes(request, mine.setupHash(), false);
        } catch (IllegalStateException e) {
            id.reject(new byte[0]);
            throw e;
        }
        id.accept(parameters);
        id.await(STEP, CmEventType.ESTABLISHED);
        return theirs;
    }

    @Override
    public boolean sync() {
        return false;
    }

    @Override
    public void finish() throws Exception {
        if (options.client()) {
            id.disconnect();
            id.await(STEP, CmEventType.DISCONNECTED);
        } else {
            id.await(FOREVER, CmEventType.DISCONNECTED);
            try {
                id.disconnect();
            } catch (RdmaException alreadyDown) {
                // The client's disconnect may have taken the connection down on both sides already.
            }
        }
    }

    @Override
    public void close() throws Exception {
        try (events) {
            try (CmId l = listener) {
                id.close();
            }
        }
    }

    @Override
    public String toString() {
        return "rdma_cm";
    }
}
