package io.jrdma.tool;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.ConnectOptions;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.LinkLayer;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;

/**
 * {@code jrdma hello [-d DEVICE] [-i PORT] [-g GID] [-p TCP_PORT] [SERVER]}: the two-process example of verbs
 * courses. Both sides exchange LID, QPN, PSN, GID, the server's buffer address and rkey over a TCP socket, connect
 * their RC queue pairs by hand, and the client RDMA-writes "hello verbs" into the server's memory, with an immediate
 * value that tells the server it is there.
 *
 * {@snippet lang=shell :
 * $ jrdma hello              # server: waits, then prints what landed in its memory
 * $ jrdma hello 10.0.0.2     # client
 * }
 */
@Command(name = "hello", sortOptions = false,
        description = {"Two processes exchange LID, QPN, PSN, GID, address and rkey over TCP; the client RDMA-writes "
                + "\"hello verbs\" into the server's memory.", "Without SERVER, wait for a client."})
final class HelloCommand extends ToolCommand {
    static final String MESSAGE = "hello verbs";
    private static final int IMMEDIATE = 0x48454c4f;
    private static final int BUFFER = 4096;
    private static final long DEADLINE_NANOS = 30_000_000_000L;

    @Option(names = "-d", paramLabel = "<dev>", description = "use IB device <dev> (default first device found)")
    private String device;

    @Option(names = "-i", paramLabel = "<port>", description = "use port <port> of the device (default ${DEFAULT-VALUE})")
    private int ibPort = 1;

    @Option(names = "-g", paramLabel = "<index>",
            description = "GID index, -1 for none (default on RoCE: the port's IPv4 RoCE v2 GID)")
    private Integer gidIndex;

    @Option(names = "-p", paramLabel = "<port>", description = "TCP port of the exchange (default ${DEFAULT-VALUE})")
    private int tcpPort = 18515;

    @Parameters(arity = "0..1", paramLabel = "SERVER", description = "the server to connect to")
    private String server;

    HelloCommand(PrintStream out, PrintStream err) {
        super(out, err);
    }

    @Override
    public Integer call() throws Exception {
        check("-i", ibPort, 1, 255);
        check("-p", tcpPort, 1, 65535);
        if (gidIndex != null) {
            check("-g", gidIndex, -1, 255);
        }
        try (Context ctx = device == null ? Context.openFirst() : Context.open(device);
             ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cq = ctx.createCompletionQueue(4);
             QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq).capacity(2, 2).create();
             MemoryRegion mr = pd.allocate(BUFFER, Access.LOCAL_WRITE, Access.REMOTE_WRITE)) {
            int gid = gidIndex != null ? gidIndex
                    : ctx.queryPort(ibPort).linkLayer() == LinkLayer.ETHERNET ? RoceGids.ipv4Index(ctx, ibPort) : -1;
            int psn = new SecureRandom().nextInt(1 << 24);
            Endpoint mine = qp.endpoint(ibPort, gid, psn);
            ConnectOptions options = ConnectOptions.of(ibPort, gid, ctx.queryPort(ibPort).activeMtu());
            show("local ", mine, mr.address(), mr.remoteKey());
            return server == null ? serve(qp, cq, mr, mine, options) : write(qp, cq, mr, mine, options);
        }
    }

    /** Server: advertise the buffer, wait for the client's write-with-immediate, print what is in memory. */
    private int serve(QueuePair qp, CompletionQueue cq, MemoryRegion mr, Endpoint mine, ConnectOptions options)
            throws Exception {
        try (ServerSocket listener = new ServerSocket(tcpPort);
             Socket s = listener.accept()) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            DataOutputStream peer = new DataOutputStream(s.getOutputStream());
            Endpoint theirs = Endpoint.fromBytes(in.readNBytes(Endpoint.BYTES));
            in.readLong();
            in.readInt();
            show("remote", theirs, 0, 0);
            qp.connect(theirs, mine.psn(), options);
            // A write with immediate consumes a receive: the completion that says the data is there. Posted before
            // the client learns where to write, and once the queue pair is out of RESET, which takes none.
            qp.postReceive(new ReceiveWorkRequest(1).id(1));
            tell(peer, mine, mr);
            WorkCompletions wc = await(cq);
            if (!wc.hasImmediate(0) || wc.immediate(0) != IMMEDIATE) {
                throw new IOException("hello: the client's write came without its immediate value");
            }
            String text = mr.segment().getString(0, StandardCharsets.US_ASCII);
            out.printf(Locale.ROOT, "received in my memory: \"%s\" (RDMA write with immediate 0x%08x)%n", text, wc.immediate(0));
            peer.writeByte(text.equals(MESSAGE) ? 0 : 1);
            peer.flush();
            return text.equals(MESSAGE) ? 0 : 1;
        }
    }

    /** Client: learn the server's buffer, write the message into it, and hear that it arrived. */
    private int write(QueuePair qp, CompletionQueue cq, MemoryRegion mr, Endpoint mine, ConnectOptions options)
            throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getByName(server), tcpPort), 10_000);
            DataInputStream in = new DataInputStream(s.getInputStream());
            DataOutputStream peer = new DataOutputStream(s.getOutputStream());
            tell(peer, mine, mr);
            Endpoint theirs = Endpoint.fromBytes(in.readNBytes(Endpoint.BYTES));
            long address = in.readLong();
            int rkey = in.readInt();
            show("remote", theirs, address, rkey);
            qp.connect(theirs, mine.psn(), options);
            mr.segment().setString(0, MESSAGE, StandardCharsets.US_ASCII);
            qp.postSend(new SendWorkRequest(1).opcode(SendOpcode.RDMA_WRITE_WITH_IMM).immediate(IMMEDIATE)
                    .signaled(true).rdma(address, rkey).add(mr, 0, MESSAGE.length() + 1));
            await(cq);
            out.printf(Locale.ROOT, "wrote \"%s\" into the server's memory at 0x%x%n", MESSAGE, address);
            int verdict = in.readByte();
            out.println(verdict == 0 ? "the server read it" : "the server read something else");
            return verdict;
        }
    }

    /** This side's part of the exchange: its endpoint, then its buffer's address and rkey. */
    private static void tell(DataOutputStream peer, Endpoint mine, MemoryRegion mr) throws IOException {
        peer.write(mine.toBytes());
        peer.writeLong(mr.address());
        peer.writeInt(mr.remoteKey());
        peer.flush();
    }

    private static WorkCompletions await(CompletionQueue cq) throws IOException {
        WorkCompletions wc = new WorkCompletions(1);
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > deadline) {
                throw new IOException("hello: no completion within 30 s");
            }
            Thread.onSpinWait();
        }
        if (wc.status(0) != WcStatus.SUCCESS) {
            throw new IOException("hello: " + wc.status(0).description());
        }
        return wc;
    }

    private void show(String side, Endpoint e, long address, int rkey) {
        out.printf(Locale.ROOT, "%s address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%s%n", side, e.lid(), e.qpn(), e.psn(),
                HexFormat.of().formatHex(e.gid()),
                address == 0 ? "" : String.format(Locale.ROOT, ", buffer 0x%x, rkey 0x%x", address, rkey));
    }
}
