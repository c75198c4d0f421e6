package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.ConnectOptions;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.ExtendedPost;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpState;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import org.junit.jupiter.api.Test;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static io.jrdma.nativetest.verbs.RcDataPathDeviceTest.expect;
import static io.jrdma.nativetest.verbs.RcDataPathDeviceTest.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Unreliable datagrams: address handles from attributes and from a received completion's GRH. */
@RdmaDeviceTest
class DatagramDeviceTest {
    private static final int QKEY = 0x11111111;

    @Test
    void datagramsGoOutThroughAnAddressHandleAndReplyThroughOneBuiltFromTheCompletion(Context ctx) throws Exception {
        int gid = DeviceSupport.gidIndex(ctx);
        ConnectOptions opts = ConnectOptions.of(1, gid, ctx.queryPort(1).activeMtu());
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cqA = ctx.createCompletionQueue(16);
             CompletionQueue cqB = ctx.createCompletionQueue(16);
             QueuePair a = pd.queuePair(QpType.UD).completionQueue(cqA).create();
             QueuePair b = pd.queuePair(QpType.UD).completionQueue(cqB).create();
             MemoryRegion mrA = pd.allocate(4096, Access.LOCAL_WRITE);
             MemoryRegion mrB = pd.allocate(4096, Access.LOCAL_WRITE)) {
            ready(opts, a, b);
            int grh = AddressHandle.GRH_BYTES;
            b.postReceive(new ReceiveWorkRequest(1).id(1).add(mrB, 0, grh + 256));
            fill(mrA.segment(), 0, 256, 4);
            Endpoint toB = b.endpoint(1, gid, 0);
            try (AddressHandle ah = pd.createAddressHandle(toB, 1, gid)) {
                SendWorkRequest wr = new SendWorkRequest(1);
                a.postSend(wr.id(2).opcode(SendOpcode.SEND).signaled(true).add(mrA, 0, 256)
                        .datagram(ah, b.qpNumber(), QKEY));
                assertEquals(WcStatus.SUCCESS, awaitCompletion(cqA).status(0));
            }
            WorkCompletions got = awaitCompletion(cqB);
            assertEquals(WcStatus.SUCCESS, got.status(0));
            assertEquals(WcOpcode.RECV, got.opcode(0));
            assertEquals(grh + 256, got.byteLength(0), "the GRH precedes the payload");
            assertTrue(got.hasGrh(0));
            assertEquals(a.qpNumber(), got.sourceQp(0));
            expect(mrB.segment(), grh, 0, 256, 4);

            // Reply to whoever sent it, knowing nothing but the completion and its GRH.
            a.postReceive(new ReceiveWorkRequest(1).id(3).add(mrA, 1024, grh + 64));
            fill(mrB.segment(), 2048, 64, 8);
            try (AddressHandle back = pd.createAddressHandle(got, 0, mrB.segment().asSlice(0, grh), 1)) {
                b.postSend(new SendWorkRequest(1).id(4).opcode(SendOpcode.SEND).signaled(true).add(mrB, 2048, 64)
                        .datagram(back, got.sourceQp(0), QKEY));
                assertEquals(WcStatus.SUCCESS, awaitCompletion(cqB).status(0));
            }
            WorkCompletions reply = awaitCompletion(cqA);
            assertEquals(3, reply.id(0));
            assertEquals(b.qpNumber(), reply.sourceQp(0));
            expect(mrA.segment(), 1024 + grh, 0, 64, 8);
        }
    }

    @Test
    void theExtendedSendApiAddressesDatagramsAndRefusesForeignOrClosedHandles(Context ctx) throws Exception {
        int gid = DeviceSupport.gidIndex(ctx);
        ConnectOptions opts = ConnectOptions.of(1, gid, ctx.queryPort(1).activeMtu());
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             ProtectionDomain otherPd = ctx.allocateProtectionDomain();
             CompletionQueue cqA = ctx.createCompletionQueue(16);
             CompletionQueue cqB = ctx.createCompletionQueue(16);
             QueuePair a = pd.queuePair(QpType.UD).completionQueue(cqA).extendedSendOps(SendOpcode.SEND).create();
             QueuePair b = pd.queuePair(QpType.UD).completionQueue(cqB).create();
             MemoryRegion mrA = pd.allocate(4096, Access.LOCAL_WRITE);
             MemoryRegion mrB = pd.allocate(4096, Access.LOCAL_WRITE)) {
            ready(opts, a, b);
            int grh = AddressHandle.GRH_BYTES;
            b.postReceive(new ReceiveWorkRequest(1).id(1).add(mrB, 0, grh + 128));
            fill(mrA.segment(), 0, 128, 6);
            Endpoint toB = b.endpoint(1, gid, 0);
            ExtendedPost post = a.extendedPost();
            try (AddressHandle ah = pd.createAddressHandle(toB, 1, gid);
                 AddressHandle foreign = otherPd.createAddressHandle(toB, 1, gid)) {
                post.start();
                post.id(7).signaled(true).send();
                assertThrows(IllegalArgumentException.class, () -> post.datagram(foreign, b.qpNumber(), QKEY),
                        "an address handle of another protection domain");
                post.datagram(ah, b.qpNumber(), QKEY).sge(mrA, 0, 128);
                post.complete();
                WorkCompletions sent = awaitCompletion(cqA);
                assertEquals(WcStatus.SUCCESS, sent.status(0));
                assertEquals(7, sent.id(0));
            }
            WorkCompletions got = awaitCompletion(cqB);
            assertEquals(WcStatus.SUCCESS, got.status(0));
            assertEquals(grh + 128, got.byteLength(0));
            assertEquals(a.qpNumber(), got.sourceQp(0));
            expect(mrB.segment(), grh, 0, 128, 6);

            AddressHandle closed = pd.createAddressHandle(toB, 1, gid);
            closed.close();
            post.start();
            post.id(8).signaled(true).send();
            assertThrows(IllegalStateException.class, () -> post.datagram(closed, b.qpNumber(), QKEY));
            post.abort();
            assertEquals(0, cqA.poll(new WorkCompletions(2)), "the aborted batch posted nothing");
        }
    }

    /** Brings UD queue pairs to RTS on port 1 with {@link #QKEY}. */
    private static void ready(ConnectOptions opts, QueuePair... qps) throws Exception {
        for (QueuePair qp : qps) {
            qp.toInitDatagram(1, QKEY);
            qp.toReadyToReceive(null, opts);
            qp.toReadyToSend(0, opts);
            assertEquals(QpState.RTS, qp.state());
        }
    }

    @Test
    void udRefusesWhatDatagramsCannotDo(Context ctx) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cq = ctx.createCompletionQueue(4);
             QueuePair qp = pd.queuePair(QpType.UD).completionQueue(cq).create();
             MemoryRegion mr = pd.allocate(64, Access.LOCAL_WRITE)) {
            assertThrows(IllegalArgumentException.class,
                    () -> qp.postSend(new SendWorkRequest(1).add(mr, 0, 8)), "no destination");
            assertThrows(IllegalStateException.class,
                    () -> qp.toInit(ConnectOptions.of(1, 0, io.jrdma.ibverbs.Mtu.MTU_1024)), "connected-only transition");
            assertEquals(QpState.RESET, qp.state());
        }
    }
}
