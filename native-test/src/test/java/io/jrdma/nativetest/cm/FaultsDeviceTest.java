package io.jrdma.nativetest.cm;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.AsyncEvent;
import io.jrdma.ibverbs.AsyncEventType;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.PortState;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpState;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.nativetest.support.RcPair;
import io.jrdma.rdmacm.CmEvent;
import io.jrdma.rdmacm.CmEventException;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static io.jrdma.nativetest.support.DeviceSupport.ipAddress;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real faults on a real device: a peer process killed mid-stream, a completion queue overrun, the port going down
 * and up, connection-manager operations nobody answers. Each must end in an error the application sees (a
 * completion status, an async event, an exception), never in a hang, and leave everything closable.
 */
@RdmaDeviceTest
class FaultsDeviceTest {
    private static final Duration T = Duration.ofSeconds(30);
    private static final int RECEIVES = 16;
    /** Receives posted once the peer is dead: nothing can consume them, so they must flush. */
    private static final int LATE = 4;
    private static final int SLOT = 8192;

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aPeerKilledMidStreamFlushesOutstandingWorkAndEverythingStillCloses(Context device) throws Exception {
        InetAddress ip = ipAddress(device);
        try (EventChannel events = EventChannel.create(); CmId listener = CmId.create(events, PortSpace.TCP)) {
            listener.bind(new InetSocketAddress(ip, 0));
            listener.listen(4);
            Path childLog = Files.createTempFile("streaming-client", ".log");
            Process child = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    StreamingClient.class.getName(), ip.getHostAddress(),
                    Integer.toString(listener.localAddress().getPort()))
                    .redirectErrorStream(true).redirectOutput(childLog.toFile()).start();
            try {
                // A second JVM starting in an emulated VM needs its time.
                CmEvent request = listener.await(Duration.ofMinutes(3), CmEventType.CONNECT_REQUEST);
                CmId id = request.id();
                Context ctx = id.context();
                ProtectionDomain pd = ctx.allocateProtectionDomain();
                CompletionQueue cq = ctx.createCompletionQueue(64);
                QueuePair qp = id.createQueuePair(pd.queuePair(QpType.RC).completionQueue(cq)
                        .capacity(8, RECEIVES + LATE));
                MemoryRegion mr = pd.allocate((long) (RECEIVES + LATE) * SLOT, Access.LOCAL_WRITE);
                ReceiveWorkRequest rr = new ReceiveWorkRequest(1);
                for (int i = 0; i < RECEIVES; i++) {
                    qp.postReceive(rr.reset().id(i).add(mr, (long) i * SLOT, SLOT));
                }
                id.accept(ConnectionParameters.defaults());
                id.await(T, CmEventType.ESTABLISHED);
                for (int i = 0; i < 10; i++) {
                    WorkCompletions wc = awaitCompletion(cq);
                    assertEquals(WcStatus.SUCCESS, wc.status(0), "streaming: " + Files.readString(childLog));
                    qp.postReceive(rr.reset().id(wc.id(0)).add(mr, wc.id(0) * SLOT, SLOT));
                }

                child.destroyForcibly().waitFor();
                // The streaming peer may have filled every receive before it died; these it cannot have.
                for (int i = RECEIVES; i < RECEIVES + LATE; i++) {
                    qp.postReceive(rr.reset().id(i).add(mr, (long) i * SLOT, SLOT));
                }
                qp.postSend(new SendWorkRequest(1).id(100).opcode(SendOpcode.SEND).signaled(true).add(mr, 0, 64));
                // The dying process's connection manager says goodbye; answering moves the queue pair to ERR.
                id.await(Duration.ofSeconds(90), CmEventType.DISCONNECTED);
                id.disconnect();
                assertEquals(QpState.ERR, qp.state());

                int outstanding = RECEIVES + LATE;
                int flushed = 0;
                int lateFlushed = 0;
                WcStatus send = null;
                WorkCompletions wcs = new WorkCompletions(8);
                long deadline = System.nanoTime() + T.toNanos();
                while ((outstanding > 0 || send == null) && System.nanoTime() < deadline) {
                    int n = cq.poll(wcs);
                    for (int i = 0; i < n; i++) {
                        if (wcs.id(i) == 100) {
                            send = wcs.status(i);
                        } else {
                            outstanding--;
                            flushed += wcs.status(i) == WcStatus.SUCCESS ? 0 : 1;
                            lateFlushed += wcs.id(i) >= RECEIVES && wcs.status(i) == WcStatus.WR_FLUSH_ERR ? 1 : 0;
                        }
                    }
                }
                assertEquals(0, outstanding, "every posted receive completes");
                assertTrue(flushed > 0, "the receives still posted flush with an error status");
                assertEquals(LATE, lateFlushed, "every receive posted after the peer died flushes");
                assertNotNull(send, "the send to the dead peer completes");
                assertTrue(send == WcStatus.WR_FLUSH_ERR || send == WcStatus.RETRY_EXC_ERR, send.description());
                assertEquals(0, cq.poll(wcs), "nothing more");

                for (AutoCloseable r : List.<AutoCloseable>of(qp, mr, cq, pd, id)) {
                    r.close();
                }
                assertTrue(pd.isClosed() && cq.isClosed() && qp.isClosed());
            } finally {
                child.destroyForcibly();
            }
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void anOverrunCompletionQueueRaisesCqErrorToTheListener(Context ctx) throws Exception {
        BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
        ctx.onAsyncEvent(events::add);
        try (RcPair p = new RcPair(ctx, QpType.RC); CompletionQueue small = ctx.createCompletionQueue(1)) {
            try (QueuePair x = p.pd.queuePair(QpType.RC).completionQueue(small).capacity(32, 1).create();
                 QueuePair y = p.pd.queuePair(QpType.RC).completionQueue(p.cqB).capacity(1, 1).create()) {
                RcPair.connect(x, y, p.gidIndex, p.options);
                int writes = small.capacity() + 4;
                SendWorkRequest wr = new SendWorkRequest(1);
                for (int i = 0; i < writes; i++) {
                    x.postSend(wr.reset().id(i).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                            .add(p.mrA, 0, 8).rdma(p.mrB.address(), p.mrB.remoteKey()));
                }
                AsyncEvent e = events.poll(60, TimeUnit.SECONDS);
                assertNotNull(e, "an async event after " + writes + " completions into " + small.capacity()
                        + " entries");
                assertEquals(AsyncEventType.CQ_ERR, e.type(), e.toString());
                assertSame(small, e.completionQueue());
            }
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void thePortGoingDownAndUpIsReportedAndTrafficResumes(Context ctx) throws Exception {
        Assumptions.assumeTrue("1".equals(System.getenv("JRDMA_TEST_VM")) || Boolean.getBoolean("jrdma.test.linkFlap"),
                "takes the device's network interface down: runs in the Soft-RoCE VM (JRDMA_TEST_VM=1) or with "
                        + "-Djrdma.test.linkFlap=true");
        String netdev = Files.readString(Path.of("/sys/class/infiniband", ctx.device().name(), "ports/1/gid_attrs/ndevs",
                Integer.toString(DeviceSupport.gidIndex(ctx)))).strip();
        BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
        ctx.onAsyncEvent(events::add);
        try (RcPair old = new RcPair(ctx, QpType.RC)) {
            try {
                link(netdev, "down");
                assertEquals(AsyncEventType.PORT_ERR, awaitPortEvent(events).type());
                assertNotEquals(PortState.ACTIVE, ctx.queryPort(1).state());
                old.b.postReceive(new ReceiveWorkRequest(1).id(1).add(old.mrB, 0, 64));
                old.a.postSend(new SendWorkRequest(1).id(2).opcode(SendOpcode.SEND).signaled(true)
                        .add(old.mrA, 0, 64));
                // rxe fails it at once (LOC_QP_OP_ERR); an HCA would retry until RETRY_EXC_ERR: an error either way.
                WcStatus whileDown = awaitStatus(old.cqA);
                assertNotNull(whileDown, "a send while the port is down completes");
                assertNotEquals(WcStatus.SUCCESS, whileDown);
                System.out.println("faults: a send on a connected queue pair while the port is down: " + whileDown);
            } finally {
                link(netdev, "up");
            }
            assertEquals(AsyncEventType.PORT_ACTIVE, awaitPortEvent(events).type());
            assertEquals(PortState.ACTIVE, ctx.queryPort(1).state());
            // The failed queue pair stays in ERR: traffic resumes on a new connection.
            assertEquals(QpState.ERR, old.a.state());

            try (RcPair fresh = new RcPair(ctx, QpType.RC)) {
                fresh.mrA.segment().setString(0, "after the port came back");
                fresh.b.postReceive(new ReceiveWorkRequest(1).id(1).add(fresh.mrB, 0, 64));
                fresh.a.postSend(new SendWorkRequest(1).id(2).opcode(SendOpcode.SEND).signaled(true)
                        .add(fresh.mrA, 0, 64));
                assertEquals(WcStatus.SUCCESS, awaitCompletion(fresh.cqA).status(0));
                assertEquals(WcStatus.SUCCESS, awaitCompletion(fresh.cqB).status(0));
                assertEquals("after the port came back", fresh.mrB.segment().getString(0));
            }
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void connectingWhereNobodyAnswersEndsInAClearErrorNotAHang(Context ctx) throws Exception {
        byte[] mine = ipAddress(ctx).getAddress();
        InetAddress nobody = InetAddress.getByAddress(new byte[] {mine[0], mine[1], mine[2], (byte) 254});
        CmEventException e = assertThrows(CmEventException.class, () -> RdmaConnection.connect(
                new InetSocketAddress(nobody, 7471), ConnectionOptions.defaults(), Duration.ofSeconds(5)));
        assertTrue(e.getMessage().contains("rdma_resolve_addr") || e.getMessage().contains("ADDR_ERROR")
                || "ETIMEDOUT".equals(e.errnoName()), e.getMessage());
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aServerThatNeverAcceptsLeavesTheClientATimeoutNotAHang(Context ctx) throws Exception {
        try (EventChannel events = EventChannel.create(); CmId listener = CmId.create(events, PortSpace.TCP)) {
            listener.bind(new InetSocketAddress(ipAddress(ctx), 0));
            listener.listen(4);
            CmEventException e = assertThrows(CmEventException.class, () -> RdmaConnection.connect(
                    listener.localAddress(), ConnectionOptions.defaults(), Duration.ofSeconds(5)));
            assertEquals("rdma_connect", e.verb(), e.getMessage());
            // The request the server never answered is still there, and its id is released cleanly.
            CmEvent request = listener.await(T, CmEventType.CONNECT_REQUEST);
            request.id().close();
        }
        try (RdmaListener nobodyComes = RdmaListener.bind(new InetSocketAddress(ipAddress(ctx), 0),
                ConnectionOptions.defaults())) {
            assertNull(nobodyComes.accept(Duration.ofMillis(500)), "accept gives up when nobody connects");
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aClientThatGivesUpBeforeItIsAcceptedCostsTheListenerNothing(Context ctx) throws Exception {
        try (RdmaListener listener = RdmaListener.bind(new InetSocketAddress(ipAddress(ctx), 0),
                ConnectionOptions.defaults())) {
            try (EventChannel events = EventChannel.create(); CmId quitter = CmId.create(events, PortSpace.TCP)) {
                quitter.resolve(listener.localAddress(), T);
                // No queue pair: the request only has to reach the listener, whose answer never comes.
                quitter.connect(ConnectionParameters.defaults().withQpNumber(0x1234));
                // Its request reaches the listener; closing the id then rejects it (IB_CM_REJ_TIMEOUT), all before
                // the listener gets to the request: the order a client that timed out on a slow server sees.
                Thread.sleep(1000);
            }
            Thread.sleep(1000);
            CompletableFuture<RdmaConnection> connected = CompletableFuture.supplyAsync(() -> {
                try {
                    return RdmaConnection.connect(listener.localAddress(), ConnectionOptions.defaults(), T);
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });
            try (RdmaConnection server = listener.accept(T);
                 RdmaConnection client = connected.get(T.toSeconds(), TimeUnit.SECONDS)) {
                assertNotNull(server, "the listener serves the next client");
                client.send(new byte[] {42});
                assertArrayEquals(new byte[] {42}, server.receive(T));
            }
        }
    }

    private static AsyncEvent awaitPortEvent(BlockingQueue<AsyncEvent> events) throws InterruptedException {
        while (true) {
            AsyncEvent e = events.poll(60, TimeUnit.SECONDS);
            assertNotNull(e, "a port event within 60 s");
            if (e.port() == 1) {
                return e;
            }
            System.out.println("faults: also seen: " + e);
        }
    }

    private static WcStatus awaitStatus(CompletionQueue cq) throws Exception {
        WorkCompletions one = new WorkCompletions(1);
        long deadline = System.nanoTime() + T.toNanos();
        while (cq.poll(one) == 0) {
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.sleep(1);
        }
        return one.status(0);
    }

    private static void link(String netdev, String state) throws Exception {
        Process ip = new ProcessBuilder(Files.exists(Path.of("/usr/sbin/ip")) ? "/usr/sbin/ip" : "/sbin/ip",
                "link", "set", netdev, state).inheritIO().start();
        assertTrue(ip.waitFor(30, TimeUnit.SECONDS), "ip link set " + netdev + " " + state);
        assertEquals(0, ip.exitValue(), "ip link set " + netdev + " " + state);
    }
}
