package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.CompletionChannel;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.RcPair;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Completion queue sizing and solicited-only notification. */
@RdmaDeviceTest
class CompletionQueueDeviceTest {

    @Test
    void resizesAndReportsItsRealCapacity(Context ctx) throws Exception {
        try (CompletionQueue cq = ctx.createCompletionQueue(10)) {
            assertTrue(cq.capacity() >= 10);
            cq.resize(200);
            assertTrue(cq.capacity() >= 200, "capacity " + cq.capacity());
            assertThrows(IllegalArgumentException.class, () -> cq.resize(0));
            assertThrows(IllegalArgumentException.class, () -> ctx.createCompletionQueue(0));
            assertThrows(IllegalArgumentException.class, () -> ctx.completionQueue(4).vector(-1).create());
            assertThrows(IllegalStateException.class, () -> cq.requestNotification(false), "no channel");
        }
    }

    @Test
    void solicitedOnlyNotificationIgnoresUnsolicitedSends(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             CompletionChannel channel = ctx.createCompletionChannel();
             CompletionQueue rcq = ctx.completionQueue(16).channel(channel).create();
             QueuePair receiver = p.pd.queuePair(QpType.RC).sendQueue(p.cqB).receiveQueue(rcq).create();
             QueuePair sender = p.pd.queuePair(QpType.RC).completionQueue(p.cqA).create()) {
            p.connect(receiver, sender);
            ReceiveWorkRequest rr = new ReceiveWorkRequest(1);
            for (int i = 0; i < 2; i++) {
                receiver.postReceive(rr.reset().id(i).add(p.mrB, i * 64L, 64));
            }
            rcq.requestNotification(true);
            SendWorkRequest wr = new SendWorkRequest(1);
            sender.postSend(wr.reset().id(1).opcode(SendOpcode.SEND).signaled(true).add(p.mrA, 0, 8));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            assertNull(channel.await(Duration.ofMillis(500)), "an unsolicited send raises no event");

            sender.postSend(wr.reset().id(2).opcode(SendOpcode.SEND).solicited(true).signaled(true)
                    .add(p.mrA, 0, 8));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            assertSame(rcq, channel.await(Duration.ofSeconds(10)), "the solicited one does");
            assertEquals(0, awaitCompletion(rcq).id(0));
            assertEquals(1, awaitCompletion(rcq).id(0));
        }
    }
}
