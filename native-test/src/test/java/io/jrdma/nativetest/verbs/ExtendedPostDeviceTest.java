package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.ExtendedPost;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.RcPair;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static io.jrdma.nativetest.verbs.RcDataPathDeviceTest.expect;
import static io.jrdma.nativetest.verbs.RcDataPathDeviceTest.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The extended send API (ibv_wr_*) on a real device. */
@RdmaDeviceTest
class ExtendedPostDeviceTest {

    @Test
    void batchesOfWritesSendsAtomicsAndInlineDataArriveInOrder(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             QueuePair qp = p.pd.queuePair(QpType.RC).completionQueue(p.cqA).maxInlineData(64)
                     .extendedSendOps(SendOpcode.RDMA_WRITE, SendOpcode.SEND_WITH_IMM, SendOpcode.RDMA_READ,
                             SendOpcode.ATOMIC_FETCH_AND_ADD).create();
             QueuePair peer = p.pd.queuePair(QpType.RC).completionQueue(p.cqB).create();
             Arena arena = Arena.ofConfined()) {
            p.connect(qp, peer);
            fill(p.mrA.segment(), 0, 2000, 5);
            p.mrB.segment().set(ValueLayout.JAVA_LONG, 8192, 40L);
            peer.postReceive(new ReceiveWorkRequest(1).id(99).add(p.mrB, 4096, 64));

            ExtendedPost post = qp.extendedPost();
            post.start();
            post.id(1).signaled(true).rdmaWrite(p.mrB.remoteKey(), p.mrB.address()).sge(p.mrA, 0, 2000);
            MemorySegment hello = arena.allocateFrom("hello verbs");
            post.id(2).flags(true, false, false, true).sendImm(77).inline(hello);
            post.id(3).signaled(true).atomicFetchAdd(p.mrB.remoteKey(), p.mrB.address() + 8192, 2)
                    .sge(p.mrA, 3000, 8);
            post.complete();

            long[] ids = new long[3];
            for (int i = 0; i < 3; i++) {
                WorkCompletions wc = awaitCompletion(p.cqA);
                assertEquals(WcStatus.SUCCESS, wc.status(0), wc.status(0).description());
                ids[i] = wc.id(0);
            }
            assertEquals(1 + 2 + 3, ids[0] + ids[1] + ids[2]);
            expect(p.mrB.segment(), 0, 0, 2000, 5);
            WorkCompletions recv = awaitCompletion(p.cqB);
            assertEquals(WcOpcode.RECV, recv.opcode(0));
            assertEquals(77, recv.immediate(0));
            assertEquals("hello verbs", p.mrB.segment().getString(4096));
            assertEquals(40L, p.mrA.segment().get(ValueLayout.JAVA_LONG, 3000), "fetch-add returned the old value");
            assertEquals(42L, p.mrB.segment().get(ValueLayout.JAVA_LONG, 8192));

            post.start();
            post.id(4).signaled(true).rdmaRead(p.mrB.remoteKey(), p.mrB.address() + 100).sge(p.mrA, 5000, 50);
            post.complete();
            assertEquals(WcOpcode.RDMA_READ, awaitCompletion(p.cqA).opcode(0));
            expect(p.mrA.segment(), 5000, 100, 50, 5);

            post.start();
            post.id(5).signaled(true).rdmaWrite(p.mrB.remoteKey(), p.mrB.address()).sge(p.mrA, 0, 8);
            post.abort();
            assertEquals(0, p.cqA.poll(new WorkCompletions(2)), "an aborted batch posts nothing");
        }
    }

    @Test
    void refusesWhatWasNotAskedForOrIsOutOfBounds(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             QueuePair qp = p.pd.queuePair(QpType.RC).completionQueue(p.cqA)
                     .extendedSendOps(SendOpcode.RDMA_WRITE).create()) {
            ExtendedPost post = qp.extendedPost();
            assertThrows(IllegalStateException.class, () -> post.id(1), "no batch started");
            post.start();
            assertThrows(IllegalStateException.class, post::send, "SEND was not asked for");
            assertThrows(IllegalStateException.class, () -> post.sge(p.mrA, 0, 8), "no request to set");
            post.id(1).rdmaWrite(p.mrB.remoteKey(), p.mrB.address());
            assertThrows(IndexOutOfBoundsException.class, () -> post.sge(p.mrA, RcPair.BUFFER - 4, 8));
            assertThrows(IllegalArgumentException.class, () -> post.inline(MemorySegment.ofArray(new byte[4])));
            assertThrows(IllegalStateException.class, post::start, "already started");
            post.abort();
            assertThrows(IllegalStateException.class, () -> p.a.extendedPost(), "a classic queue pair");
        }
    }
}
