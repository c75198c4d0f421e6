package io.jrdma.nativetest.cm;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;
import io.jrdma.rdmacm.RemoteRegion;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer that is no {@link RdmaConnection}, written on the connection manager and verbs directly, sends an
 * {@code RdmaConnection} what it would never send itself: empty messages, region descriptors too short, too long or
 * of no length, unknown tags and RDMA writes with immediate data, more of them than the connection has receive slots. Each is dropped and counted,
 * its slot posted again, and the message and the region the peer sends next still arrive.
 */
@RdmaDeviceTest
class MalformedPeerMessagesDeviceTest {
    private static final Duration T = Duration.ofSeconds(60);
    private static final int RECEIVE_SLOTS = 2;
    private static final byte DATA = 0;
    private static final byte REGION = 1;
    private static final int ROUNDS = 3;

    @Test
    void malformedMessagesAreDroppedAndCountedAndTheConnectionCarriesOn(Context ctx) throws Exception {
        ConnectionOptions options = ConnectionOptions.defaults().withDepths(4, RECEIVE_SLOTS);
        try (RdmaListener listener = RdmaListener.bind(new InetSocketAddress(DeviceSupport.ipAddress(ctx), 0), options);
             EventChannel events = EventChannel.create();
             CmId raw = CmId.create(events, PortSpace.TCP)) {
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return listener.accept(T);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            raw.resolve(listener.localAddress(), T);
            try (ProtectionDomain pd = raw.context().allocateProtectionDomain();
                 CompletionQueue cq = raw.context().createCompletionQueue(8);
                 MemoryRegion mr = pd.allocate(64, Access.LOCAL_WRITE);
                 QueuePair qp = raw.createQueuePair(pd.queuePair(QpType.RC).completionQueue(cq).capacity(4, 4))) {
                raw.connect(ConnectionParameters.defaults());
                raw.await(T, CmEventType.ESTABLISHED);
                try (RdmaConnection server = accepted.get(T.toSeconds(), TimeUnit.SECONDS)) {
                    RemoteRegion writable = writableRegionOf(server, qp, cq, mr);
                    // The peer's sends wait for receive slots (RNR retries forever) until the server takes them.
                    CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> {
                        try {
                            return server.receive(T);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    int malformed = 0;
                    for (int round = 0; round < ROUNDS; round++) {
                        send(qp, cq, mr, -1);
                        send(qp, cq, region(mr, 1, 8, 4096), 1 + 5);
                        send(qp, cq, region(mr, 1, 8, 4096), 1 + 25);
                        send(qp, cq, region(mr, 1, 8, 0), 1 + 20);
                        send(qp, cq, region(mr, 1, 8, -4096), 1 + 20);
                        mr.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 7);
                        send(qp, cq, mr, 1 + 10);
                        writeWithImmediate(qp, cq, mr, writable);
                        malformed += 7;
                    }
                    assertTrue(malformed > RECEIVE_SLOTS, "more malformed messages than receive slots");

                    byte[] text = "still here".getBytes(StandardCharsets.US_ASCII);
                    mr.segment().set(ValueLayout.JAVA_BYTE, 0, DATA);
                    MemorySegment.copy(text, 0, mr.segment(), ValueLayout.JAVA_BYTE, 1, text.length);
                    send(qp, cq, mr, 1 + text.length);
                    assertArrayEquals(text, received.get(T.toSeconds(), TimeUnit.SECONDS));

                    send(qp, cq, region(mr, 0x1000, 0x42, 4096), 1 + 20);
                    assertEquals(new RemoteRegion(0x1000, 0x42, 4096), server.awaitRemoteRegion(T));
                    assertEquals(malformed, server.malformedMessages());
                    assertTrue(server.isOpen());
                    raw.disconnect();
                }
            }
        }
    }

    /** A region {@code server} advertises for writes, as the raw peer receives it into {@code mr}. */
    private static RemoteRegion writableRegionOf(RdmaConnection server, QueuePair qp, CompletionQueue cq,
                                                 MemoryRegion mr) throws Exception {
        qp.postReceive(new ReceiveWorkRequest(1).id(0).add(mr, 0, 64));
        server.advertise(server.register(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        assertEquals(WcStatus.SUCCESS, DeviceSupport.awaitCompletion(cq).status(0), "the advertisement");
        MemorySegment s = mr.segment();
        assertEquals(REGION, s.get(ValueLayout.JAVA_BYTE, 0));
        return new RemoteRegion(s.get(ValueLayout.JAVA_LONG_UNALIGNED, 1), s.get(ValueLayout.JAVA_INT_UNALIGNED, 9),
                s.get(ValueLayout.JAVA_LONG_UNALIGNED, 13));
    }

    /** An RDMA write with immediate data into {@code region}: it takes one of the peer's receives, writing none. */
    private static void writeWithImmediate(QueuePair qp, CompletionQueue cq, MemoryRegion mr, RemoteRegion region)
            throws Exception {
        qp.postSend(new SendWorkRequest(1).id(1).opcode(SendOpcode.RDMA_WRITE_WITH_IMM).immediate(7).signaled(true)
                .rdma(region.address(), region.remoteKey()).add(mr, 0, 8));
        assertEquals(WcStatus.SUCCESS, DeviceSupport.awaitCompletion(cq).status(0), "the write with immediate");
    }

    /** Writes a tagged region descriptor at the start of {@code mr}. */
    private static MemoryRegion region(MemoryRegion mr, long address, int key, long length) {
        MemorySegment s = mr.segment();
        s.set(ValueLayout.JAVA_BYTE, 0, REGION);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 1, address);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 9, key);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 13, length);
        return mr;
    }

    /** Sends the first {@code bytes} of {@code mr} (-1: a message of no bytes at all) and waits for its completion. */
    private static void send(QueuePair qp, CompletionQueue cq, MemoryRegion mr, int bytes) throws Exception {
        SendWorkRequest wr = new SendWorkRequest(1).id(bytes).opcode(SendOpcode.SEND).signaled(true);
        if (bytes >= 0) {
            wr.add(mr, 0, bytes);
        }
        qp.postSend(wr);
        assertEquals(WcStatus.SUCCESS, DeviceSupport.awaitCompletion(cq).status(0), "send of " + bytes + " bytes");
    }
}
