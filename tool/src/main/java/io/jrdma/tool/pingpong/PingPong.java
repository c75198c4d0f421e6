package io.jrdma.tool.pingpong;

import io.jrdma.tool.GidFormat;
import io.jrdma.tool.Resources;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionChannel;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.LinkLayer;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.PortAttributes;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * What rdma-core's {@code ibv_rc/uc/ud/srq_pingpong} share, in the same order and with the same output: one buffer
 * and completion queue, {@code rx_depth} receives kept posted, the TCP handshake, and the loop in which a queue pair
 * sends its next message once both its previous SEND and the peer's answer have completed. The client sends first.
 * Subclasses create and connect the queue pairs.
 *
 * {@snippet class=io.jrdma.tool.pingpong.PingPongSnippets region=ping-pong}
 */
abstract class PingPong implements AutoCloseable {
    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;
    /** The page the -c check steps by, as the C examples' {@code sysconf(_SC_PAGESIZE)}. */
    static final int PAGE_SIZE = pageSize();

    final PingPongOptions options;
    final List<QueuePair> queuePairs = new ArrayList<>();
    final SendWorkRequest send = new SendWorkRequest(1);
    Context context;
    ProtectionDomain pd;
    CompletionQueue cq;
    MemoryRegion buffer;
    private CompletionChannel channel;
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
    private final PrintStream out;
    private final Deque<AutoCloseable> owned = new ArrayDeque<>();
    private final Random random = new SecureRandom();

    PingPong(PingPongOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** The example {@code options} names. */
    static PingPong of(PingPongOptions options, PrintStream out) {
        return switch (options.variant()) {
            case RC -> new ConnectedPingPong(options, out, QpType.RC);
            case UC -> new ConnectedPingPong(options, out, QpType.UC);
            case UD -> new DatagramPingPong(options, out);
            case SRQ -> new SharedReceivePingPong(options, out);
        };
    }

    /** Creates the queue pairs on {@link #cq} and brings them to INIT. */
    abstract void createQueuePairs(PortAttributes port) throws RdmaException;

    /** Brings the queue pairs to RTS towards {@code remote} (as many as were exchanged), sending from {@code local}. */
    abstract void connect(List<Endpoint> local, List<Endpoint> remote) throws RdmaException;

    /** Bytes before the payload in the buffer: UD receives land behind a GRH. */
    int payloadOffset() {
        return 0;
    }

    /** What the buffer holds before anything arrives. */
    byte initialFill() {
        return 0x7b;
    }

    /** Completions taken per poll. */
    int pollBatch() {
        return 2;
    }

    /** Endpoint messages each side sends in the handshake. */
    int handshakeMessages() {
        return queuePairs.size();
    }

    /** Whether a port that is not Ethernet must have a LID (ud_pingpong does not check). */
    boolean requiresLid() {
        return true;
    }

    /** The text between PSN and GID of the "local address" line. */
    String localGidSeparator() {
        return ",";
    }

    void postReceive(ReceiveWorkRequest r) throws RdmaException {
        queuePairs.getFirst().postReceive(r);
    }

    /** Closes {@code resource} with this ping-pong, before everything owned earlier. */
    <T extends AutoCloseable> T own(T resource) {
        owned.push(resource);
        return resource;
    }

    /**
     * The local GID index for a path to {@code remote}: like the C examples, a GRH only when the peer sent a GID
     * with an interface id.
     */
    int gidIndexTowards(Endpoint remote) {
        byte[] gid = remote.gid();
        for (int i = 8; i < 16; i++) {
            if (gid[i] != 0) {
                return options.gidIndex();
            }
        }
        return -1;
    }

    /** Runs the whole example; returns the exit status. */
    final int run() throws RdmaException, IOException {
        context = own(options.device() == null ? Context.openFirst() : Context.open(options.device()));
        PortAttributes port = context.queryPort(options.ibPort());
        if (port.linkLayer() == LinkLayer.ETHERNET && options.gidIndex() < 0) {
            throw new IllegalArgumentException("pingpong " + options.variant().label() + ": port "
                    + options.ibPort() + " of " + context.device().name() + " is RoCE: give a GID index with -g");
        }
        channel = options.events() ? own(context.createCompletionChannel()) : null;
        pd = own(context.allocateProtectionDomain());
        buffer = own(pd.allocate(payloadOffset() + options.size(), Access.LOCAL_WRITE));
        buffer.segment().fill(initialFill());
        cq = own(context.completionQueue(options.rxDepth() + options.queuePairs()).channel(channel).create());
        createQueuePairs(port);
        receive.id(RECV_WRID).add(buffer, 0, payloadOffset() + options.size());
        boolean inline = queuePairs.stream().anyMatch(q -> q.capabilities().maxInlineData() >= options.size());
        send.id(SEND_WRID).opcode(SendOpcode.SEND).signaled(true).inline(inline)
                .add(buffer, payloadOffset(), options.size());
        postReceives(options.rxDepth());
        if (channel != null) {
            cq.requestNotification(false);
        }
        List<Endpoint> local = localEndpoints(port);
        boolean client = options.server() != null;
        List<Endpoint> remote = client
                ? PingPongHandshake.asClient(options.server(), options.port(), padded(local))
                : PingPongHandshake.asServer(options.port(), padded(local), r -> connect(local, r));
        for (int i = 0; i < queuePairs.size(); i++) {
            print("  remote address: ", ",", remote.get(i));
        }
        if (client) {
            connect(local, remote);
        }
        pingPong(client);
        return 0;
    }

    private List<Endpoint> localEndpoints(PortAttributes port) throws RdmaException {
        if (requiresLid() && port.linkLayer() != LinkLayer.ETHERNET && port.lid() == 0) {
            throw new IllegalStateException("couldn't get the local LID of port " + options.ibPort());
        }
        byte[] gid = options.gidIndex() < 0 ? new byte[16]
                : context.queryGid(options.ibPort(), options.gidIndex()).gid();
        List<Endpoint> local = new ArrayList<>();
        for (QueuePair qp : queuePairs) {
            Endpoint e = new Endpoint(port.lid(), qp.qpNumber(), random.nextInt(1 << 24), gid);
            print("  local address:  ", localGidSeparator(), e);
            local.add(e);
        }
        return local;
    }

    private List<Endpoint> padded(List<Endpoint> local) {
        List<Endpoint> messages = new ArrayList<>(local);
        while (messages.size() < handshakeMessages()) {
            messages.add(new Endpoint(0, 0, 0, new byte[16]));
        }
        return messages;
    }

    private void print(String label, String separator, Endpoint e) {
        out.printf(Locale.ROOT, "%sLID 0x%04x, QPN 0x%06x, PSN 0x%06x%s GID %s%n", label, e.lid(), e.qpn(), e.psn(),
                separator, GidFormat.format(e.gid()));
    }

    private int postReceives(int n) throws RdmaException {
        for (int i = 0; i < n; i++) {
            postReceive(receive);
        }
        return n;
    }

    private void pingPong(boolean client) throws RdmaException {
        int size = options.size();
        int iters = options.iters();
        int[] pending = new int[queuePairs.size()];
        if (client && options.validate()) {
            // The C examples write i / page_size % sizeof(char), which is always 0: the first byte of every page
            // becomes 0 in a buffer that started as 0x7b, and the server checks exactly that.
            for (int i = 0; i < size; i += PAGE_SIZE) {
                buffer.segment().set(ValueLayout.JAVA_BYTE, payloadOffset() + i, (byte) 0);
            }
        }
        for (int q = 0; q < pending.length; q++) {
            if (client) {
                queuePairs.get(q).postSend(send);
            }
            pending[q] = client ? RECV_WRID | SEND_WRID : RECV_WRID;
        }
        long start = System.nanoTime();
        WorkCompletions wc = new WorkCompletions(pollBatch());
        int routs = options.rxDepth();
        int rcnt = 0;
        int scnt = 0;
        while (rcnt < iters || scnt < iters) {
            if (channel != null) {
                awaitEvent();
            }
            int ne;
            do {
                ne = cq.poll(wc);
            } while (channel == null && ne < 1);
            for (int i = 0; i < ne; i++) {
                if (wc.status(i) != WcStatus.SUCCESS) {
                    throw new IllegalStateException(String.format(Locale.ROOT, "failed status %s (%d) for wr_id %d",
                            wc.status(i).description(), wc.status(i).value(), wc.id(i)));
                }
                int q = queuePairIndex(wc, i);
                int id = (int) wc.id(i);
                switch (id) {
                    case SEND_WRID -> scnt++;
                    case RECV_WRID -> {
                        // Top up once at most one receive per queue pair is left.
                        if (--routs <= queuePairs.size()) {
                            routs += postReceives(options.rxDepth() - routs);
                        }
                        rcnt++;
                    }
                    default -> throw new IllegalStateException("completion for unknown wr_id " + id);
                }
                pending[q] &= ~id;
                if (scnt < iters && pending[q] == 0) {
                    queuePairs.get(q).postSend(send);
                    pending[q] = RECV_WRID | SEND_WRID;
                }
            }
        }
        report((System.nanoTime() - start) / 1000.0, client);
    }

    private void awaitEvent() throws RdmaException {
        CompletionQueue ready;
        try {
            ready = channel.await(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a completion event");
        }
        if (ready != cq) {
            throw new IllegalStateException("CQ event for unknown CQ " + ready);
        }
        cq.requestNotification(false);
    }

    private int queuePairIndex(WorkCompletions wc, int i) {
        if (queuePairs.size() == 1) {
            return 0;
        }
        int qpn = wc.qpNumber(i);
        for (int q = 0; q < queuePairs.size(); q++) {
            if (queuePairs.get(q).qpNumber() == qpn) {
                return q;
            }
        }
        throw new IllegalStateException(String.format(Locale.ROOT, "couldn't find QPN %06x", qpn));
    }

    private void report(double usec, boolean client) {
        int iters = options.iters();
        long bytes = (long) options.size() * iters * 2;
        out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1e6, bytes * 8. / usec);
        out.printf(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter%n", iters, usec / 1e6, usec / iters);
        if (!client && options.validate()) {
            for (int i = 0; i < options.size(); i += PAGE_SIZE) {
                if (buffer.segment().get(ValueLayout.JAVA_BYTE, payloadOffset() + i) != 0) {
                    out.printf(Locale.ROOT, "invalid data in page %d%n", i / PAGE_SIZE);
                }
            }
        }
    }

    /** Closes everything this ping-pong created, newest first. */
    @Override
    public void close() throws Exception {
        Resources.closeAll(owned.toArray(AutoCloseable[]::new));
        owned.clear();
    }

    @SuppressWarnings("restricted") // the page size has no Java API; the C examples align to it too
    private static int pageSize() {
        Linker linker = Linker.nativeLinker();
        try {
            return (int) linker.downcallHandle(linker.defaultLookup().find("getpagesize").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT)).invokeExact();
        } catch (Throwable t) {
            throw new ExceptionInInitializerError(t);
        }
    }
}
