package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.QpState;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.RcPair;
import org.junit.jupiter.api.Test;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static io.jrdma.nativetest.verbs.RcDataPathDeviceTest.expect;
import static io.jrdma.nativetest.verbs.RcDataPathDeviceTest.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** UC queue pairs, and the SQD and ERR states with what they do to outstanding work. */
@RdmaDeviceTest
class QueuePairStatesDeviceTest {

    @Test
    void ucMovesSendsAndWritesButRefusesReadsAndAtomics(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.UC)) {
            assertEquals(QpState.RTS, p.a.state());
            fill(p.mrA.segment(), 0, 1000, 3);
            p.a.postSend(new SendWorkRequest(1).id(1).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                    .add(p.mrA, 0, 1000).rdma(p.mrB.address() + 8, p.mrB.remoteKey()));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            p.b.postReceive(new ReceiveWorkRequest(1).id(2).add(p.mrB, 2048, 512));
            p.a.postSend(new SendWorkRequest(1).id(3).opcode(SendOpcode.SEND).signaled(true).add(p.mrA, 0, 300));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            WorkCompletions got = awaitCompletion(p.cqB);
            assertEquals(WcOpcode.RECV, got.opcode(0));
            assertEquals(300, got.byteLength(0));
            expect(p.mrB.segment(), 8, 0, 1000, 3);
            expect(p.mrB.segment(), 2048, 0, 300, 3);
            assertThrows(IllegalArgumentException.class, () -> p.a.postSend(new SendWorkRequest(1)
                    .opcode(SendOpcode.RDMA_READ).add(p.mrA, 0, 8).rdma(p.mrB.address(), p.mrB.remoteKey())));
            assertThrows(IllegalArgumentException.class, () -> p.a.postSend(new SendWorkRequest(1)
                    .opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).add(p.mrA, 0, 8).atomic(p.mrB.address(), 1, 1, 0)));
        }
    }

    @Test
    void sendQueueDrainedStopsTheSendQueue(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            p.a.toSendQueueDrained();
            QpState s = p.a.state();
            assertTrue(s == QpState.SQD, "state " + s);
        }
    }

    @Test
    void errorFlushesOutstandingReceivesAndResetRecovers(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            ReceiveWorkRequest rr = new ReceiveWorkRequest(1);
            p.b.postReceive(rr.reset().id(21).add(p.mrB, 0, 64));
            p.b.postReceive(rr.reset().id(22).add(p.mrB, 64, 64));
            p.b.toError();
            assertEquals(QpState.ERR, p.b.state());
            for (long id : new long[] {21, 22}) {
                WorkCompletions wc = awaitCompletion(p.cqB);
                assertEquals(id, wc.id(0));
                assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(0), "nothing is lost: every request completes");
            }
            p.a.reset();
            p.b.reset();
            p.connect();
            p.b.postReceive(rr.reset().id(23).add(p.mrB, 0, 64));
            p.a.postSend(new SendWorkRequest(1).id(24).opcode(SendOpcode.SEND).signaled(true).add(p.mrA, 0, 64));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            assertEquals(23, awaitCompletion(p.cqB).id(0));
        }
    }
}
