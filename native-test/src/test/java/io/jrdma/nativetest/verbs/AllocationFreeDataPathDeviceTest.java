package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.ThreadConfinement;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.RcPair;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The steady-state data path allocates nothing: refilling requests, posting sends and receives, polling and
 * reading completions, measured with the thread's allocation counter after the JIT has compiled the loop; with
 * shared and with confined queue pairs and completion queues.
 */
@RdmaDeviceTest
class AllocationFreeDataPathDeviceTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @ParameterizedTest
    @EnumSource(ThreadConfinement.class)
    void postingAndPollingAllocateNothing(ThreadConfinement mode, Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC, mode)) {
            SendWorkRequest write = new SendWorkRequest(1);
            SendWorkRequest send = new SendWorkRequest(1);
            ReceiveWorkRequest recv = new ReceiveWorkRequest(1);
            WorkCompletions wcs = new WorkCompletions(4);
            long remote = p.mrB.address();
            int rkey = p.mrB.remoteKey();
            Loop loop = () -> {
                write.reset().id(1).opcode(SendOpcode.RDMA_WRITE).signaled(true).add(p.mrA, 0, 64).rdma(remote, rkey);
                p.a.postSend(write);
                p.b.postReceive(recv.reset().id(2).add(p.mrB, 4096, 64));
                p.a.postSend(send.reset().id(3).opcode(SendOpcode.SEND).signaled(true).add(p.mrA, 64, 64));
                long sum = drain(p.cqA, wcs, 2) + drain(p.cqB, wcs, 1);
                if (sum != 1 + 3 + 2) {
                    throw new IllegalStateException("unexpected completions, ids summing to " + sum);
                }
            };
            // Windows of 2000 rounds until one allocates nothing: the first ones run interpreted or in C1, which
            // cannot remove the short-lived objects the optimizing compiler scalar-replaces. A path that really
            // allocates never reaches zero.
            long allocated = -1;
            for (int window = 0; window < 30 && allocated != 0; window++) {
                long before = THREADS.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 2_000; i++) {
                    loop.run();
                }
                allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            }
            assertEquals(0, allocated, "bytes allocated by 2000 write+send+receive rounds, after warm-up");

            // Steady state: windows of 34,000 rounds of 3 posts (102,000 operations) and their polls. A rare
            // deoptimization re-materializes scalar-replaced objects once (a few hundred bytes in a whole window);
            // an allocating data path would allocate in every window, so one clean window of three decides.
            List<Long> windows = new ArrayList<>();
            for (int attempt = 0; attempt < 3 && !windows.contains(0L); attempt++) {
                long before = THREADS.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 34_000; i++) {
                    loop.run();
                }
                windows.add(THREADS.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(windows.contains(0L), "bytes allocated by windows of 102,000 posted operations and their polls: "
                    + windows);
        }
    }

    /** Polls until {@code n} successful completions arrived; returns the sum of their ids. */
    private static long drain(CompletionQueue cq, WorkCompletions wcs, int n) throws IOException {
        long sum = 0;
        int got = 0;
        while (got < n) {
            int k = cq.poll(wcs);
            for (int i = 0; i < k; i++) {
                if (wcs.status(i) != WcStatus.SUCCESS) {
                    throw new IOException("completion " + wcs.id(i) + ": " + wcs.status(i));
                }
                sum += wcs.id(i);
            }
            got += k;
        }
        return sum;
    }

    @FunctionalInterface
    private interface Loop {
        void run() throws IOException;
    }
}
