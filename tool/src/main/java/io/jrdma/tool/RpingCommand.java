package io.jrdma.tool;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.rdmacm.CmEvent;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * {@code jrdma rping (-s|-c) -a ADDRESS [-p PORT] [-C COUNT] [-S SIZE] [-I SOURCE] [-v] [-V]}: librdmacm's rping
 * protocol, interoperable with the C {@code rping} in either role. Each ping: the client advertises its source
 * buffer, the server RDMA-reads it, the client advertises its sink buffer, the server RDMA-writes the data back.
 *
 * {@snippet lang=shell :
 * $ jrdma rping -c -a 10.0.0.2 -C 10 -V
 * }
 */
@Command(name = "rping", sortOptions = false,
        description = "librdmacm's rping protocol, interoperable with the C rping in either role.")
final class RpingCommand extends ToolCommand {
    /** {@code struct rping_rdma_info}: big-endian buffer address, rkey and size. */
    private static final int INFO_BYTES = 16;
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int MIN_SIZE = "2147483647".length() + 1 + "rdma-ping-%d: ".length() + 1;
    private static final int MAX_SIZE = 64 * 1024 - 1;
    private static final Duration RESOLVE = Duration.ofMillis(2000);
    private static final Duration T = Duration.ofSeconds(30);

    @Option(names = "-s", description = "server")
    private boolean server;

    @Option(names = "-c", description = "client")
    private boolean client;

    @Option(names = "-a", paramLabel = "<address>",
            description = "address to bind (server, default any) or connect to (client)")
    private InetAddress address;

    @Option(names = "-I", paramLabel = "<address>", description = "source address to bind to (client)")
    private InetAddress source;

    @Option(names = "-p", paramLabel = "<port>", description = "port (default ${DEFAULT-VALUE})")
    private int port = 7174;

    @Option(names = "-C", paramLabel = "<count>", description = "ping count (default 0: forever)")
    private int count;

    @Option(names = "-S", paramLabel = "<size>", description = "ping data size (default ${DEFAULT-VALUE})")
    private int size = 64;

    @Option(names = "-v", description = "display ping data")
    private boolean verbose;

    @Option(names = "-V", description = "validate ping data")
    private boolean validate;

    @Option(names = "-d", description = "debug prints of the C rping: accepted, nothing to add")
    private boolean debug;

    RpingCommand(PrintStream out, PrintStream err) {
        super(out, err);
    }

    @Override
    public Integer call() throws Exception {
        check();
        try (EventChannel events = EventChannel.create(); CmId id = CmId.create(events, PortSpace.TCP)) {
            if (server) {
                id.bind(new InetSocketAddress(address, port));
                id.listen(3);
                CmId child = id.await(Duration.ofDays(365), CmEventType.CONNECT_REQUEST).id();
                try {
                    try (Session session = new Session(events, child)) {
                        return session.serve();
                    }
                } finally {
                    child.close();
                }
            }
            id.resolveAddress(source == null ? null : new InetSocketAddress(source, 0),
                    new InetSocketAddress(address, port), RESOLVE);
            id.await(T, CmEventType.ADDR_RESOLVED);
            id.resolveRoute(RESOLVE);
            id.await(T, CmEventType.ROUTE_RESOLVED);
            try (Session session = new Session(events, id)) {
                return session.ping();
            }
        }
    }

    private void check() throws Exception {
        if (server == client) {
            throw usage("say -s (server) or -c (client)");
        }
        check("-p", port, 0, 65535);
        check("-C", count, 0, Integer.MAX_VALUE);
        check("-S", size, MIN_SIZE, MAX_SIZE);
        if (address == null) {
            if (client) {
                throw usage("the client needs the server's address: -a ADDRESS");
            }
            address = InetAddress.getByName("0.0.0.0");
        }
    }

    /** One connection's verbs objects and the protocol on them. */
    private final class Session implements AutoCloseable {
        private final EventChannel events;
        private final CmId id;
        private final WorkCompletions wc = new WorkCompletions(1);
        private final SendWorkRequest infoWr = new SendWorkRequest(1);
        private final SendWorkRequest rdmaWr = new SendWorkRequest(1);
        private final ReceiveWorkRequest recvWr = new ReceiveWorkRequest(1);
        private boolean disconnected;
        private ProtectionDomain pd;
        private CompletionQueue cq;
        private QueuePair qp;
        private MemoryRegion recv;
        private MemoryRegion send;
        private MemoryRegion rdma;

        /** What both roles use: the queue pair, its CQ, the advertisement buffers and the RDMA buffer. */
        Session(EventChannel events, CmId id) throws Exception {
            this.events = events;
            this.id = id;
            try {
                Context ctx = id.context();
                pd = ctx.allocateProtectionDomain();
                cq = ctx.createCompletionQueue(32);
                qp = id.createQueuePair(pd.queuePair(QpType.RC).completionQueue(cq).capacity(16, 2));
                recv = pd.allocate(INFO_BYTES, Access.LOCAL_WRITE);
                send = pd.allocate(INFO_BYTES);
                rdma = pd.allocate(size, Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE);
                qp.postReceive(recvWr.reset().add(recv, 0, INFO_BYTES));
                infoWr.reset().opcode(SendOpcode.SEND).signaled(true).add(send, 0, INFO_BYTES);
            } catch (Exception e) {
                try {
                    close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }

        @Override
        public void close() throws Exception {
            Resources.closeAll(rdma, send, recv, qp, cq, pd);
        }

        int serve() throws Exception {
            id.accept(rping());
            id.await(T, CmEventType.ESTABLISHED);
            while (true) {
                // The client's source buffer: read it.
                if (!awaitReceive()) {
                    break;
                }
                long addr = recv.segment().get(BE_LONG, 0);
                int rkey = recv.segment().get(BE_INT, 8);
                int length = recv.segment().get(BE_INT, 12);
                if (length > size) {
                    throw new IllegalStateException("rping: the client's buffer (" + length
                            + " bytes) is larger than this server's -S " + size);
                }
                qp.postSend(rdmaWr.reset().opcode(SendOpcode.RDMA_READ).signaled(true).rdma(addr, rkey)
                        .add(rdma, 0, length));
                if (!awaitOwn(WcOpcode.RDMA_READ)) {
                    break;
                }
                String data = cString(rdma.segment());
                if (verbose) {
                    out.println("server ping data: " + data);
                }
                qp.postSend(infoWr);
                // The client's sink buffer: write the data back.
                if (!awaitReceive()) {
                    break;
                }
                addr = recv.segment().get(BE_LONG, 0);
                rkey = recv.segment().get(BE_INT, 8);
                qp.postSend(rdmaWr.reset().opcode(SendOpcode.RDMA_WRITE).signaled(true).rdma(addr, rkey)
                        .add(rdma, 0, data.length() + 1));
                if (!awaitOwn(WcOpcode.RDMA_WRITE)) {
                    break;
                }
                qp.postSend(infoWr);
            }
            id.disconnect();
            return 0;
        }

        int ping() throws Exception {
            // The client's source buffer, which the server reads; rdma is the sink it writes back into.
            try (MemoryRegion start = pd.allocate(size, Access.LOCAL_WRITE, Access.REMOTE_READ,
                    Access.REMOTE_WRITE)) {
                id.connect(rping());
                id.await(T, CmEventType.ESTABLISHED);
                int first = 65;
                for (int ping = 0; count == 0 || ping < count; ping++) {
                    fill(start.segment(), ping, first);
                    first = first == 122 ? 65 : first + 1;
                    advertise(start);
                    if (!awaitReceive()) {
                        throw new IllegalStateException("rping: the server went away");
                    }
                    advertise(rdma);
                    if (!awaitReceive()) {
                        throw new IllegalStateException("rping: the server went away");
                    }
                    if (validate && start.segment().mismatch(rdma.segment()) != -1) {
                        err.println("data mismatch!");
                        return 1;
                    }
                    if (verbose) {
                        out.println("ping data: " + cString(rdma.segment()));
                    }
                }
                id.disconnect();
            }
            return 0;
        }

        private ConnectionParameters rping() {
            return ConnectionParameters.defaults().withResources(1, 1).withRetryCount(7).withRnrRetryCount(7);
        }

        private void advertise(MemoryRegion buffer) throws RdmaException {
            MemorySegment info = send.segment();
            info.set(BE_LONG, 0, buffer.address());
            info.set(BE_INT, 8, buffer.remoteKey());
            info.set(BE_INT, 12, size);
            qp.postSend(infoWr);
        }

        /** Waits for the next receive (reposting the buffer); false if the peer disconnected first. */
        private boolean awaitReceive() throws Exception {
            if (!awaitOwn(WcOpcode.RECV)) {
                return false;
            }
            if (wc.byteLength(0) != INFO_BYTES) {
                throw new IllegalStateException("rping: received bogus data, size " + wc.byteLength(0));
            }
            qp.postReceive(recvWr.reset().add(recv, 0, INFO_BYTES));
            return true;
        }

        /**
         * Polls until a completion of {@code opcode} (send completions pass by); false if the peer disconnected or
         * the queue pair was flushed.
         */
        private boolean awaitOwn(WcOpcode opcode) throws Exception {
            while (true) {
                if (cq.poll(wc) == 1) {
                    if (wc.status(0) == WcStatus.WR_FLUSH_ERR) {
                        return false;
                    }
                    if (wc.status(0) != WcStatus.SUCCESS) {
                        throw new IllegalStateException("rping: completion failed: " + wc.status(0).description());
                    }
                    if (wc.opcode(0) == opcode) {
                        return true;
                    }
                    continue;
                }
                if (disconnected) {
                    return false;
                }
                CmEvent e = events.poll(Duration.ofMillis(1));
                if (e != null && e.type() == CmEventType.DISCONNECTED) {
                    err.println((server ? "server" : "client") + " DISCONNECT EVENT...");
                    disconnected = true;
                }
            }
        }
    }

    /** The C client's ping pattern: "rdma-ping-N: " then letters cycling from {@code first}, NUL-terminated. */
    static void fill(MemorySegment buf, int ping, int first) {
        byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int size = (int) buf.byteSize();
        int cc = Math.min(head.length, size - 1);
        MemorySegment.copy(head, 0, buf, ValueLayout.JAVA_BYTE, 0, cc);
        int c = first;
        for (int i = cc; i < size; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, (byte) c);
            c = c == 122 ? 65 : c + 1;
        }
        buf.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
    }

    static String cString(MemorySegment buf) {
        long end = 0;
        while (end < buf.byteSize() && buf.get(ValueLayout.JAVA_BYTE, end) != 0) {
            end++;
        }
        return new String(buf.asSlice(0, end).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }
}
