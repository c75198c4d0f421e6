package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.QpState;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.RcPair;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static io.jrdma.nativetest.verbs.RcDataPathDeviceTest.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * RC corner cases: gather/scatter of strided blocks, zero-length messages, RNR retries exhausted, remote writes
 * refused (wrong rkey, no REMOTE_WRITE) writing nothing.
 */
@RdmaDeviceTest
class RcEdgeCasesDeviceTest {

    @Test
    void gatherWriteAndScatterReadOfStridedBlocksMoveEveryByte(Context ctx) throws Exception {
        int block = 256;
        int count = 4;
        int stride = 1000;
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            fill(p.mrA.segment(), 0, count * stride, 11);
            SendWorkRequest gather = new SendWorkRequest(count).id(1).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                    .rdma(p.mrB.address(), p.mrB.remoteKey());
            for (int i = 0; i < count; i++) {
                gather.add(p.mrA, (long) i * stride, block);
            }
            p.a.postSend(gather);
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            for (int i = 0; i < count; i++) {
                assertBlock(p.mrB.segment(), (long) i * block, p.mrA.segment(), (long) i * stride, block);
            }

            // Read the contiguous remote copy back, scattered to strided blocks at 20000.
            SendWorkRequest scatter = new SendWorkRequest(count).id(2).opcode(SendOpcode.RDMA_READ).signaled(true)
                    .rdma(p.mrB.address(), p.mrB.remoteKey());
            for (int i = 0; i < count; i++) {
                scatter.add(p.mrA, 20_000L + (long) i * stride, block);
            }
            p.a.postSend(scatter);
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            for (int i = 0; i < count; i++) {
                assertBlock(p.mrA.segment(), 20_000L + (long) i * stride, p.mrA.segment(), (long) i * stride, block);
            }
        }
    }

    @Test
    void zeroLengthSendAndWriteComplete(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            p.b.postReceive(new ReceiveWorkRequest(1).id(5).add(p.mrB, 0, 64));
            p.a.postSend(new SendWorkRequest(1).id(6).opcode(SendOpcode.SEND_WITH_IMM).immediate(9).signaled(true));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            WorkCompletions got = awaitCompletion(p.cqB);
            assertEquals(0, got.byteLength(0));
            assertEquals(9, got.immediate(0));
            p.a.postSend(new SendWorkRequest(1).id(7).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                    .rdma(p.mrB.address(), p.mrB.remoteKey()));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
        }
    }

    @Test
    void aSendWithNoReceivePostedExhaustsItsRnrRetriesAndWhatFollowsFlushes(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            p.a.reset();
            p.b.reset();
            p.options.rnrRetry(0).minRnrTimer(1);
            try {
                p.connect();
                SendWorkRequest second = new SendWorkRequest(1).id(9).opcode(SendOpcode.SEND).signaled(true)
                        .add(p.mrA, 0, 16);
                p.a.postSend(new SendWorkRequest(1).id(8).opcode(SendOpcode.SEND).signaled(true)
                        .add(p.mrA, 0, 16).next(second));
                WorkCompletions wc = awaitCompletion(p.cqA);
                assertEquals(8, wc.id(0));
                assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status(0), wc.status(0).description());
                assertEquals(QpState.ERR, p.a.state());
                wc = awaitCompletion(p.cqA);
                assertEquals(9, wc.id(0));
                assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(0), "queued behind the failure");
                p.a.postSend(second.id(10));
                wc = awaitCompletion(p.cqA);
                assertEquals(10, wc.id(0));
                assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(0), "posted after the failure");
            } finally {
                p.options.rnrRetry(7).minRnrTimer(12);
            }
        }
    }

    @Test
    void aWrongRkeyWritesNoByte(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            assertWriteRefused(p, p.mrB, p.mrB.remoteKey() ^ 0x100);
        }
    }

    @Test
    void aRegionWithoutRemoteWriteTakesNoByte(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             MemoryRegion readOnly = p.pd.allocate(RcPair.BUFFER, Access.LOCAL_WRITE, Access.REMOTE_READ)) {
            assertWriteRefused(p, readOnly, readOnly.remoteKey());
        }
    }

    /** An RDMA write of 512 bytes to {@code target} under {@code rkey} fails with REM_ACCESS_ERR, changing nothing. */
    private static void assertWriteRefused(RcPair p, MemoryRegion target, int rkey) throws Exception {
        fill(p.mrA.segment(), 0, 512, 1);
        target.segment().fill((byte) 0x5a);
        p.a.postSend(new SendWorkRequest(1).id(9).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                .add(p.mrA, 0, 512).rdma(target.address(), rkey));
        WorkCompletions wc = awaitCompletion(p.cqA);
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(0));
        assertEquals(QpState.ERR, p.a.state());
        for (long i = 0; i < target.length(); i++) {
            if (target.segment().get(ValueLayout.JAVA_BYTE, i) != 0x5a) {
                throw new AssertionError("byte " + i + " of the target was written");
            }
        }
    }

    private static void assertBlock(MemorySegment got, long at, MemorySegment want, long from, int length) {
        long mismatch = got.asSlice(at, length).mismatch(want.asSlice(from, length));
        assertEquals(-1, mismatch, "block at " + at + " differs at byte " + mismatch);
    }
}
