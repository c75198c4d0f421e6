package io.jrdma.nativetest;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Closing a queue pair or a completion queue while another thread posts or polls on it: the close waits for the call
 * in flight, and every later call is an {@link IllegalStateException}, never a use of freed native memory.
 */
@RdmaDeviceTest
class ConcurrentCloseDeviceTest {

    @Test
    void closingWhileAnotherThreadPostsAndPollsIsSafe(Context ctx) throws Exception {
        for (int round = 0; round < 20; round++) {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain();
                 MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE)) {
                CompletionQueue cq = ctx.createCompletionQueue(64);
                QueuePair qp = pd.queuePair(QpType.UD).completionQueue(cq).capacity(4, 4).create();
                qp.toInitDatagram(1, 0x11111111);
                CountDownLatch running = new CountDownLatch(2);
                // One thread keeps the receive queue full; another polls the completion queue.
                CompletableFuture<Throwable> poster = hammer(running, () -> {
                    try {
                        qp.postReceive(new ReceiveWorkRequest(1).add(mr, 0, 64));
                    } catch (io.jrdma.ibverbs.RdmaException full) {
                        // ENOMEM once the queue is full: keep going until the close.
                    }
                });
                WorkCompletions wcs = new WorkCompletions(4);
                CompletableFuture<Throwable> poller = hammer(running, () -> cq.poll(wcs));
                assertTrue(running.await(30, TimeUnit.SECONDS));
                Thread.sleep(round % 5);
                qp.close();
                assertInstanceOf(IllegalStateException.class, poster.get(30, TimeUnit.SECONDS));
                cq.close();
                assertInstanceOf(IllegalStateException.class, poller.get(30, TimeUnit.SECONDS));
                assertThrows(IllegalStateException.class, () -> cq.poll(wcs));
            }
        }
    }

    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }

    /** Runs {@code call} in a loop on a new thread until it throws; completes with what it threw. */
    private static CompletableFuture<Throwable> hammer(CountDownLatch running, Call call) {
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            running.countDown();
            try {
                while (true) {
                    call.run();
                }
            } catch (Throwable t) {
                ended.complete(t instanceof ExecutionException e ? e.getCause() : t);
            }
        });
        return ended;
    }
}
