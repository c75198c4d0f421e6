package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.ExtendedPoll;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcField;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.nativetest.support.RcPair;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The extended completion queue: start/next/end polling and the readers of the fields asked for. */
@RdmaDeviceTest
class ExtendedCompletionQueueDeviceTest {

    record Seen(long id, WcStatus status, WcOpcode opcode, int length, int immediate, int qpn) {
    }

    @Test
    void readsEveryCompletionInPlaceWithTheFieldsAskedFor(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             CompletionQueue cq = ctx.completionQueue(32)
                     .extended(WcField.BYTE_LEN, WcField.IMM, WcField.QP_NUM).create();
             QueuePair receiver = p.pd.queuePair(QpType.RC).sendQueue(p.cqB).receiveQueue(cq).create();
             QueuePair sender = p.pd.queuePair(QpType.RC).completionQueue(p.cqA).create()) {
            p.connect(receiver, sender);
            ReceiveWorkRequest rr = new ReceiveWorkRequest(1);
            for (int i = 0; i < 3; i++) {
                receiver.postReceive(rr.reset().id(10 + i).add(p.mrB, i * 1024L, 1024));
            }
            SendWorkRequest wr = new SendWorkRequest(1);
            for (int i = 0; i < 3; i++) {
                sender.postSend(wr.reset().id(i).opcode(SendOpcode.SEND_WITH_IMM).immediate(500 + i).signaled(true)
                        .add(p.mrA, 0, 100 * (i + 1)));
                DeviceSupport.awaitCompletion(p.cqA);
            }

            ExtendedPoll poll = cq.extendedPoll();
            List<Seen> seen = new ArrayList<>();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (seen.size() < 3 && System.nanoTime() < deadline) {
                if (poll.start()) {
                    do {
                        seen.add(new Seen(poll.id(), poll.status(), poll.opcode(), poll.byteLength(),
                                poll.immediate(), poll.qpNumber()));
                    } while (poll.next());
                    poll.end();
                }
            }
            assertEquals(List.of(
                    new Seen(10, WcStatus.SUCCESS, WcOpcode.RECV, 100, 500, receiver.qpNumber()),
                    new Seen(11, WcStatus.SUCCESS, WcOpcode.RECV, 200, 501, receiver.qpNumber()),
                    new Seen(12, WcStatus.SUCCESS, WcOpcode.RECV, 300, 502, receiver.qpNumber())), seen);
            assertFalse(poll.start(), "drained");
            assertThrows(IllegalStateException.class, poll::sourceQp, "SRC_QP was not asked for");
            assertThrows(IllegalStateException.class, () -> p.cqA.extendedPoll(), "a classic queue");
        }
    }
}
