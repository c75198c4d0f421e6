package io.jrdma.nativetest.safety;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.ThreadConfinement;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Closing a queue pair or a completion queue while another thread posts or polls on it: the close waits for the call
 * in flight, and every later call is an {@link IllegalStateException}, never a use of freed native memory. Confined
 * ones refuse the other threads outright ({@link WrongThreadException}), and their owner's close cannot race them.
 */
@RdmaDeviceTest
class ConcurrentCloseDeviceTest {

    @ParameterizedTest
    @EnumSource(ThreadConfinement.class)
    void closingWhileAnotherThreadPostsAndPollsIsSafe(ThreadConfinement mode, Context ctx) throws Exception {
        // Shared: the other threads' calls run until the close, then are refused; confined: refused from the start.
        Class<? extends RuntimeException> refusal = mode == ThreadConfinement.SHARED ? IllegalStateException.class
                : WrongThreadException.class;
        for (int round = 0; round < 20; round++) {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain();
                 MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE)) {
                CompletionQueue cq = ctx.completionQueue(64).confinement(mode).create();
                QueuePair qp = udQueuePair(pd, cq, mode);
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
                assertInstanceOf(refusal, poster.get(30, TimeUnit.SECONDS));
                cq.close();
                assertInstanceOf(refusal, poller.get(30, TimeUnit.SECONDS));
                assertThrows(IllegalStateException.class, () -> cq.poll(wcs));
            }
        }
    }

    @Test
    void anotherThreadCannotCloseAConfinedQueueWhileItsOwnerPostsAndPolls(Context ctx) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE)) {
            CompletableFuture<QueuePair> created = new CompletableFuture<>();
            CountDownLatch stop = new CountDownLatch(1);
            AtomicLong rounds = new AtomicLong();
            // The owner: creates its queue pair and CQ, posts and polls until told to stop, then closes them.
            CompletableFuture<Long> owner = CompletableFuture.supplyAsync(() -> {
                try {
                    CompletionQueue cq = ctx.completionQueue(64).confinement(ThreadConfinement.CONFINED).create();
                    QueuePair qp = udQueuePair(pd, cq, ThreadConfinement.CONFINED);
                    created.complete(qp);
                    WorkCompletions wcs = new WorkCompletions(4);
                    while (stop.getCount() > 0) {
                        qp.postReceive(new ReceiveWorkRequest(1).add(mr, 0, 64));
                        qp.toError();   // flushes the receive: a completion to poll
                        while (cq.poll(wcs) == 0) {
                            Thread.onSpinWait();
                        }
                        qp.reset();
                        qp.toInitDatagram(1, 0x11111111);
                        rounds.incrementAndGet();
                    }
                    qp.close();
                    cq.close();
                    return rounds.get();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, r -> Thread.ofPlatform().start(r));
            QueuePair qp = created.get(30, TimeUnit.SECONDS);
            // Refused again and again while the owner's rounds go on, until it has done 20 of them.
            for (long end = System.nanoTime() + 60_000_000_000L; rounds.get() < 20 && System.nanoTime() < end; ) {
                assertThrows(WrongThreadException.class, qp::close);
                assertFalse(qp.isClosed());
            }
            stop.countDown();
            assertTrue(owner.get(60, TimeUnit.SECONDS) >= 20, "the owner kept posting and polling");
            assertTrue(qp.isClosed());
        }
    }

    /** A UD queue pair in INIT: it takes receives. */
    private static QueuePair udQueuePair(ProtectionDomain pd, CompletionQueue cq, ThreadConfinement mode)
            throws Exception {
        QueuePair qp = pd.queuePair(QpType.UD).completionQueue(cq).capacity(4, 4).confinement(mode).create();
        qp.toInitDatagram(1, 0x11111111);
        return qp;
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
