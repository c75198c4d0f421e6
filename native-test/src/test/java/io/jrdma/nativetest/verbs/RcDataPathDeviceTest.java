package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionChannel;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
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

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The RC data path on a real device: every byte checked at the other end. */
@RdmaDeviceTest
class RcDataPathDeviceTest {

    @Test
    void sendLandsInThePostedReceiveWithItsLengthAndImmediate(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            fill(p.mrA.segment(), 0, 3000, 7);
            p.b.postReceive(new ReceiveWorkRequest(2).id(41).add(p.mrB, 100, 2000).add(p.mrB, 5000, 2000));
            p.a.postSend(new SendWorkRequest(2).id(42).opcode(SendOpcode.SEND_WITH_IMM).immediate(0xCAFE)
                    .signaled(true).add(p.mrA, 0, 1500).add(p.mrA, 1500, 1500));

            WorkCompletions sent = awaitCompletion(p.cqA);
            assertEquals(WcStatus.SUCCESS, sent.status(0), sent.status(0).description());
            assertEquals(42, sent.id(0));
            assertEquals(WcOpcode.SEND, sent.opcode(0));
            WorkCompletions got = awaitCompletion(p.cqB);
            assertEquals(WcStatus.SUCCESS, got.status(0), got.status(0).description());
            assertEquals(41, got.id(0));
            assertEquals(WcOpcode.RECV, got.opcode(0));
            assertEquals(3000, got.byteLength(0));
            assertTrue(got.hasImmediate(0));
            assertEquals(0xCAFE, got.immediate(0));
            assertEquals(p.b.qpNumber(), got.qpNumber(0));
            // The 3000 bytes scatter over the two receive entries: 2000 at 100, 1000 at 5000.
            expect(p.mrB.segment(), 100, 0, 2000, 7);
            expect(p.mrB.segment(), 5000, 2000, 1000, 7);
        }
    }

    @Test
    void rdmaWriteAndReadMoveBytesWithoutTheRemoteCpu(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            fill(p.mrA.segment(), 0, 40_000, 3);
            p.a.postSend(new SendWorkRequest(1).id(1).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                    .add(p.mrA, 0, 40_000).rdma(p.mrB.address() + 1000, p.mrB.remoteKey()));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            expect(p.mrB.segment(), 1000, 0, 40_000, 3);

            fill(p.mrB.segment(), 50_000, 8_000, 9);
            p.a.postSend(new SendWorkRequest(1).id(2).opcode(SendOpcode.RDMA_READ).signaled(true)
                    .add(p.mrA, 60_000, 4_000).rdma(p.mrB.address() + 52_000, p.mrB.remoteKey()));
            WorkCompletions read = awaitCompletion(p.cqA);
            assertEquals(WcStatus.SUCCESS, read.status(0));
            assertEquals(WcOpcode.RDMA_READ, read.opcode(0));
            expect(p.mrA.segment(), 60_000, 2_000, 4_000, 9);
            assertEquals(0, p.cqB.poll(new WorkCompletions(4)), "one-sided: nothing completes at the target");
        }
    }

    @Test
    void atomicsFetchAddAndCompareSwapReturnTheOldValue(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            MemorySegment remote = p.mrB.segment();
            remote.set(ValueLayout.JAVA_LONG, 64, 1000L);
            SendWorkRequest wr = new SendWorkRequest(1);
            p.a.postSend(wr.reset().id(1).opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .add(p.mrA, 0, 8).atomic(p.mrB.address() + 64, p.mrB.remoteKey(), 234, 0));
            WorkCompletions wc = awaitCompletion(p.cqA);
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            assertEquals(WcOpcode.FETCH_ADD, wc.opcode(0));
            assertEquals(1000L, p.mrA.segment().get(ValueLayout.JAVA_LONG, 0), "old value");
            assertEquals(1234L, remote.get(ValueLayout.JAVA_LONG, 64));

            p.a.postSend(wr.reset().id(2).opcode(SendOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                    .add(p.mrA, 8, 8).atomic(p.mrB.address() + 64, p.mrB.remoteKey(), 1234, 77));
            assertEquals(WcOpcode.COMP_SWAP, awaitCompletion(p.cqA).opcode(0));
            assertEquals(1234L, p.mrA.segment().get(ValueLayout.JAVA_LONG, 8));
            assertEquals(77L, remote.get(ValueLayout.JAVA_LONG, 64), "swapped: compare matched");

            p.a.postSend(wr.reset().id(3).opcode(SendOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                    .add(p.mrA, 16, 8).atomic(p.mrB.address() + 64, p.mrB.remoteKey(), 1, 99));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            assertEquals(77L, p.mrA.segment().get(ValueLayout.JAVA_LONG, 16));
            assertEquals(77L, remote.get(ValueLayout.JAVA_LONG, 64), "not swapped: compare differed");
        }
    }

    @Test
    void writeWithImmediateConsumesAReceiveAndCarriesTheImmediate(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            fill(p.mrA.segment(), 0, 512, 5);
            p.b.postReceive(new ReceiveWorkRequest(1).id(9));
            p.a.postSend(new SendWorkRequest(1).id(1).opcode(SendOpcode.RDMA_WRITE_WITH_IMM).immediate(123456)
                    .signaled(true).add(p.mrA, 0, 512).rdma(p.mrB.address(), p.mrB.remoteKey()));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            WorkCompletions got = awaitCompletion(p.cqB);
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, got.opcode(0));
            assertEquals(9, got.id(0));
            assertEquals(123456, got.immediate(0));
            expect(p.mrB.segment(), 0, 0, 512, 5);
        }
    }

    @Test
    void chainsPostInOrderAndUnsignaledRequestsCompleteSilently(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            fill(p.mrA.segment(), 0, 300, 1);
            SendWorkRequest w1 = new SendWorkRequest(1).id(1).opcode(SendOpcode.RDMA_WRITE)
                    .add(p.mrA, 0, 100).rdma(p.mrB.address(), p.mrB.remoteKey());
            SendWorkRequest w2 = new SendWorkRequest(1).id(2).opcode(SendOpcode.RDMA_WRITE).inline(true)
                    .add(p.mrA, 100, 64).rdma(p.mrB.address() + 100, p.mrB.remoteKey());
            SendWorkRequest w3 = new SendWorkRequest(1).id(3).opcode(SendOpcode.RDMA_WRITE).signaled(true).fence(true)
                    .add(p.mrA, 164, 136).rdma(p.mrB.address() + 164, p.mrB.remoteKey());
            p.a.postSend(w1.next(w2.next(w3)));
            WorkCompletions wc = awaitCompletion(p.cqA);
            assertEquals(3, wc.id(0), "only the signaled request completes");
            assertEquals(0, p.cqA.poll(new WorkCompletions(4)));
            expect(p.mrB.segment(), 0, 0, 300, 1);
        }
    }

    @Test
    void aBadRkeyIsAnErrorCompletionAndTheQueuePairRecoversThroughReset(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            p.a.postSend(new SendWorkRequest(1).id(5).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                    .add(p.mrA, 0, 64).rdma(p.mrB.address(), p.mrB.remoteKey() + 1));
            WorkCompletions wc = awaitCompletion(p.cqA);
            assertEquals(5, wc.id(0));
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(0));
            assertEquals("remote access error", wc.status(0).description());
            assertEquals(QpState.ERR, p.a.state());

            p.a.reset();
            p.b.reset();
            assertEquals(QpState.RESET, p.a.state());
            p.connect();
            assertEquals(QpState.RTS, p.a.state());
            fill(p.mrA.segment(), 0, 64, 2);
            p.a.postSend(new SendWorkRequest(1).id(6).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                    .add(p.mrA, 0, 64).rdma(p.mrB.address(), p.mrB.remoteKey()));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            expect(p.mrB.segment(), 0, 0, 64, 2);
        }
    }

    @Test
    void badRequestsAreRefusedBeforeReachingTheDevice(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            SendWorkRequest wr = new SendWorkRequest(8);
            for (int i = 0; i < 5; i++) {
                wr.add(p.mrA, i * 8L, 8);
            }
            assertThrows(IllegalArgumentException.class, () -> p.a.postSend(wr), "5 SGEs on a 4-SGE queue pair");
            assertThrows(IndexOutOfBoundsException.class,
                    () -> new SendWorkRequest(1).add(p.mrA, RcPair.BUFFER - 4, 8), "past the region");
            assertThrows(IllegalArgumentException.class, () -> p.a.postSend(new SendWorkRequest(1)
                    .opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).add(p.mrA, 0, 16).atomic(p.mrB.address(), 1, 1, 0)));
            assertThrows(IllegalArgumentException.class,
                    () -> new SendWorkRequest(1).atomic(p.mrB.address() + 4, 1, 1, 0), "unaligned atomic");
            assertThrows(IllegalArgumentException.class, () -> p.a.postSend(new SendWorkRequest(1).inline(true)
                    .add(p.mrA, 0, 4096)), "inline beyond max inline data");
            assertThrows(IllegalStateException.class, () -> p.a.toInitDatagram(1, 0x11111111));
            assertEquals(QpState.RTS, p.a.state(), "nothing reached the queue pair");
        }
    }

    /**
     * A chain that comes back to an inline request would hold that request's region once per visit and release it
     * once: refused at the second visit, and what the first one held is released, so the region still closes.
     */
    @Test
    void aLoopingChainOfInlineWritesIsRefusedAndLeavesNothingHeld(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            MemoryRegion mr = p.pd.allocate(4096, Access.LOCAL_WRITE);
            SendWorkRequest loop = new SendWorkRequest(1).id(5).opcode(SendOpcode.RDMA_WRITE).inline(true)
                    .add(mr, 0, 8).rdma(p.mrB.address(), p.mrB.remoteKey());
            loop.next(loop);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> p.a.postSend(loop));
            assertTrue(refused.getMessage().contains("twice"), refused.getMessage());
            // A hold left behind makes close wait for a post that has long returned: it would never finish.
            CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> {
                try {
                    mr.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            closed.get(2, TimeUnit.MINUTES);
            assertTrue(mr.isClosed());
        }
    }

    @Test
    void aCompletionChannelWakesAWaiterAndTimesOutWhenIdle(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             CompletionChannel channel = ctx.createCompletionChannel();
             CompletionQueue cq = ctx.completionQueue(16).channel(channel).create()) {
            cq.requestNotification(false);
            assertNull(channel.await(Duration.ofMillis(200)), "no completion yet");
            try (var qp = p.pd.queuePair(QpType.RC).completionQueue(cq).create();
                 var peer = p.pd.queuePair(QpType.RC).completionQueue(cq).create()) {
                p.connect(qp, peer);
                qp.postSend(new SendWorkRequest(1).id(77).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                        .add(p.mrA, 0, 8).rdma(p.mrB.address(), p.mrB.remoteKey()));
                CompletionQueue[] woke = new CompletionQueue[1];
                Thread v = Thread.ofVirtual().start(() -> {
                    try {
                        woke[0] = channel.await(Duration.ofSeconds(10));
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                v.join(Duration.ofSeconds(15));
                assertSame(cq, woke[0], "the virtual thread woke for this queue");
                assertEquals(77, awaitCompletion(cq).id(0));
            }
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    channel.await(null);
                } catch (InterruptedException expected) {
                    Thread.currentThread().interrupt();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(100);
            t.interrupt();
            t.join(Duration.ofSeconds(2));
            assertFalse(t.isAlive(), "an interrupted wait returns");
        }
    }

    static void fill(MemorySegment s, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            s.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (i * 31 + seed));
        }
    }

    /** {@code length} bytes at {@code offset} equal what {@link #fill} wrote from pattern position {@code from}. */
    static void expect(MemorySegment s, long offset, int from, int length, int seed) {
        for (int i = 0; i < length; i++) {
            byte want = (byte) ((from + i) * 31 + seed);
            byte got = s.get(ValueLayout.JAVA_BYTE, offset + i);
            if (got != want) {
                throw new AssertionError("byte " + (offset + i) + ": want " + want + ", got " + got);
            }
        }
    }
}
