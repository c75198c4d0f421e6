package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.AsyncEvent;
import io.jrdma.ibverbs.AsyncEventType;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.SharedReceiveQueue;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.RcPair;
import org.junit.jupiter.api.Test;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A shared receive queue feeding two queue pairs, its limit event, and the async event listener. */
@RdmaDeviceTest
class SharedReceiveQueueDeviceTest {

    @Test
    void twoQueuePairsReceiveFromOnePoolAndTheLimitEventReachesTheListener(Context ctx) throws Exception {
        BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
        ctx.onAsyncEvent(events::add);
        try (RcPair p = new RcPair(ctx, QpType.RC);
             SharedReceiveQueue srq = p.pd.createSharedReceiveQueue(16, 1);
             QueuePair s1 = p.pd.queuePair(QpType.RC).completionQueue(p.cqB).sharedReceiveQueue(srq).create();
             QueuePair s2 = p.pd.queuePair(QpType.RC).completionQueue(p.cqB).sharedReceiveQueue(srq).create();
             QueuePair c1 = p.pd.queuePair(QpType.RC).completionQueue(p.cqA).create();
             QueuePair c2 = p.pd.queuePair(QpType.RC).completionQueue(p.cqA).create()) {
            assertTrue(srq.query().maxWr() >= 16, "at least the asked depth");
            p.connect(s1, c1);
            p.connect(s2, c2);
            assertThrows(IllegalStateException.class, () -> s1.postReceive(new ReceiveWorkRequest(1)),
                    "receives go to the SRQ");

            ReceiveWorkRequest rr = new ReceiveWorkRequest(1);
            for (int i = 0; i < 8; i++) {
                srq.postReceive(rr.reset().id(100 + i).add(p.mrB, i * 1024L, 1024));
            }
            srq.armLimit(7);
            assertEquals(7, srq.query().limit());

            SendWorkRequest wr = new SendWorkRequest(1);
            c1.postSend(wr.reset().id(1).opcode(SendOpcode.SEND).signaled(true).add(p.mrA, 0, 100));
            c2.postSend(wr.reset().id(2).opcode(SendOpcode.SEND).signaled(true).add(p.mrA, 0, 200));
            int seen = 0;
            long ids = 0;
            for (int i = 0; i < 2; i++) {
                WorkCompletions got = awaitCompletion(p.cqB);
                assertEquals(WcStatus.SUCCESS, got.status(0));
                assertTrue(got.qpNumber(0) == s1.qpNumber() || got.qpNumber(0) == s2.qpNumber());
                seen += got.byteLength(0);
                ids += got.id(0);
            }
            assertEquals(300, seen, "both messages landed through the shared pool");
            assertEquals(100 + 101, ids, "the first two posted buffers were used");

            AsyncEvent e = events.poll(10, TimeUnit.SECONDS);
            assertNotNull(e, "the limit event arrived");
            assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, e.type());
            assertEquals("SRQ limit reached", e.type().description());
            assertSame(srq, e.sharedReceiveQueue());
            assertEquals(0, srq.query().limit(), "the limit disarms itself");
            awaitCompletion(p.cqA);
            awaitCompletion(p.cqA);
        }
    }
}
