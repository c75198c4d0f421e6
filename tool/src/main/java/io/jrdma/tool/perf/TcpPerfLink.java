package io.jrdma.tool.perf;

import io.jrdma.tool.RoceGids;

import io.jrdma.ibverbs.ConnectOptions;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.DeviceAttributes;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.LinkLayer;
import io.jrdma.ibverbs.PortAttributes;
import io.jrdma.ibverbs.QueuePair;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.SecureRandom;

/**
 * {@code jrdma perf}'s default link: the device from {@code -d}, queue pairs connected by hand after a TCP exchange
 * of {@link PerfPeer}s. The client speaks first; the server connects its queue pair before it answers; the client
 * connects its own and says "ready"; the same socket carries the closing handshake.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=tcp-link}
 */
final class TcpPerfLink implements PerfLink {
    /** Most outstanding RDMA reads and atomics asked of the device; perftest asks for its maximum. */
    private static final int MAX_READ_ATOMIC = 16;
    private static final int CONNECT_TIMEOUT_MS = 10_000;
    /** The bytes of the exchange after the endpoints: the client is ready, a sync point, the end. */
    private static final int READY = 1;
    private static final int SYNC = 3;
    private static final int FINISH = 2;

    private final PerfOptions options;
    private final Context context;
    private final PortAttributes port;
    private final int gidIndex;
    private Socket socket;

    private TcpPerfLink(PerfOptions options, Context context) throws Exception {
        this.options = options;
        this.context = context;
        this.port = context.queryPort(options.ibPort());
        this.gidIndex = options.gidIndex() != null ? options.gidIndex()
                : port.linkLayer() == LinkLayer.ETHERNET ? RoceGids.ipv4Index(context, options.ibPort()) : -1;
        if (port.linkLayer() == LinkLayer.ETHERNET && gidIndex < 0) {
            throw new IllegalArgumentException("perf: port " + options.ibPort() + " of " + context.device().name()
                    + " is RoCE without an IPv4 GID: give a GID index with -x");
        }
    }

    static TcpPerfLink open(PerfOptions options) throws Exception {
        Context ctx = options.device() == null ? Context.openFirst() : Context.open(options.device());
        try {
            return new TcpPerfLink(options, ctx);
        } catch (Exception e) {
            ctx.close();
            throw e;
        }
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public String linkType() {
        return port.linkLayer() == LinkLayer.ETHERNET ? "Ethernet" : "IB";
    }

    @Override
    public int gidIndex() {
        return gidIndex;
    }

    @Override
    public QueuePair createQueuePair(QueuePair.Builder builder) throws Exception {
        return builder.create();
    }

    @Override
    public PerfPeer connect(QueuePair qp, PerfPeer mine) throws Exception {
        int psn = new SecureRandom().nextInt(1 << 24);
        Endpoint endpoint = qp.endpoint(options.ibPort(), gidIndex, psn);
        byte[] message = new PerfPeer(mine.setupHash(), mine.address(), mine.rkey(), endpoint).toBytes();
        DeviceAttributes device = context.queryDevice();
        ConnectOptions path = ConnectOptions.of(options.ibPort(), gidIndex, port.activeMtu())
                .maxReadAtomic(Math.max(1, Math.min(MAX_READ_ATOMIC,
                        Math.min(device.maxQpRdAtom(), device.maxQpInitRdAtom()))));
        if (options.client()) {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(InetAddress.getByName(options.server()), options.tcpPort()),
                    CONNECT_TIMEOUT_MS);
            socket.getOutputStream().write(message);
            PerfPeer theirs = read(mine.setupHash());
            qp.connect(theirs.endpoint(), psn, path);
            socket.getOutputStream().write(READY);
            return theirs;
        }
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(options.tcpPort()), 1);
            socket = listener.accept();
            socket.setTcpNoDelay(true);
        }
        // Sent before the client's is checked: a client of another setup learns why as well.
        socket.getOutputStream().write(message);
        PerfPeer theirs = read(mine.setupHash());
        qp.connect(theirs.endpoint(), psn, path);
        if (socket.getInputStream().read() != READY) {
            throw new EOFException("perf: the client left before its queue pair was ready");
        }
        return theirs;
    }

    private PerfPeer read(int setupHash) throws IOException {
        byte[] bytes = new byte[PerfPeer.BYTES];
        try {
            new DataInputStream(socket.getInputStream()).readFully(bytes);
        } catch (EOFException e) {
            throw new EOFException("perf: the peer closed the exchange (is it jrdma perf with the same test?)");
        }
        return PerfPeer.fromBytes(bytes, setupHash, true);
    }

    @Override
    public boolean sync() throws IOException {
        exchange(SYNC, "perf: the peer left in the middle of the test");
        return true;
    }

    @Override
    public void finish() throws IOException {
        exchange(FINISH, "perf: the peer left without finishing");
    }

    private void exchange(int token, String lost) throws IOException {
        socket.getOutputStream().write(token);
        if (socket.getInputStream().read() != token) {
            throw new EOFException(lost);
        }
    }

    @Override
    public void close() throws Exception {
        try (context) {
            if (socket != null) {
                socket.close();
            }
        }
    }

    @Override
    public String toString() {
        return "Ethernet".equals(linkType()) ? "TCP exchange, RoCE" : "TCP exchange, InfiniBand";
    }
}
