package io.jrdma.nativetest;

import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.ThreadConfinement;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** jrdma's data path, unchanged, against the test provider the overhead benchmarks measure it on. */
class TestProviderTest {
    @Test
    void postsReachTheProviderWithTheirRequests() throws Exception {
        try (TestProvider tp = TestProvider.open()) {
            SendWorkRequest second = new SendWorkRequest(1).id(9).add(tp.memoryRegion(), 64, 100);
            tp.queuePair().postSend(new SendWorkRequest(1).id(7).opcode(SendOpcode.SEND).signaled(true)
                    .add(tp.memoryRegion(), 0, 64).next(second));
            assertEquals(2, tp.sends());
            assertEquals(164, tp.bytes());
            assertEquals(9, tp.lastId());

            tp.queuePair().postReceive(new ReceiveWorkRequest(1).id(11).add(tp.memoryRegion(), 0, 4096));
            assertEquals(1, tp.receives());
            assertEquals(11, tp.lastId());
            assertEquals(164 + 4096, tp.bytes());
        }
    }

    @Test
    void pollsFillEveryEntryAndArmingReachesTheProvider() throws Exception {
        try (TestProvider tp = TestProvider.open()) {
            WorkCompletions wcs = new WorkCompletions(4);
            assertEquals(4, tp.completionQueue().poll(wcs));
            for (int i = 0; i < 4; i++) {
                assertEquals(i, wcs.id(i));
                assertEquals(WcStatus.SUCCESS, wcs.status(i));
                assertEquals(WcOpcode.SEND, wcs.opcode(i));
                assertEquals(64, wcs.byteLength(i));
                assertEquals(tp.queuePair().qpNumber(), wcs.qpNumber(i));
            }
            tp.completionQueue().requestNotification(false);
            assertEquals(1, tp.notifications());
        }
    }

    @Test
    void badRequestsNeverReachTheProvider() throws Exception {
        try (TestProvider tp = TestProvider.open()) {
            SendWorkRequest twoEntries = new SendWorkRequest(2).add(tp.memoryRegion(), 0, 8).add(tp.memoryRegion(), 8, 8);
            assertThrows(IllegalArgumentException.class, () -> tp.queuePair().postSend(twoEntries));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> new SendWorkRequest(1).add(tp.memoryRegion(), 4000, 200));
            assertEquals(0, tp.sends());
        }
    }

    @Test
    void theCBaselineRunsTheSameOperations() throws Exception {
        try (TestProvider tp = TestProvider.open()) {
            assertEquals(0, tp.benchPostSend(10));
            assertEquals(0, tp.benchPostSendChain(2));
            assertEquals(10 + 2 * TestProvider.CHAIN, tp.sends());
            assertEquals(0, tp.benchPostReceive(3));
            assertEquals(3, tp.receives());
            assertEquals(0, tp.benchRequestNotification(5));
            assertEquals(5, tp.notifications());
            assertEquals(0 + 1 + 2 + 3 + 4 + 5, tp.benchPoll(2, 3));
            assertEquals(6, tp.polled());
        }
    }

    @ParameterizedTest
    @EnumSource(ThreadConfinement.class)
    void closedObjectsRefuseTheDataPath(ThreadConfinement mode) throws Exception {
        TestProvider tp = TestProvider.open(mode);
        assertEquals(mode, tp.queuePair().confinement());
        assertEquals(mode, tp.completionQueue().confinement());
        tp.close();
        assertThrows(IllegalStateException.class, () -> tp.queuePair().postSend(new SendWorkRequest(1)));
        assertThrows(IllegalStateException.class,
                () -> tp.queuePair().postReceive(new ReceiveWorkRequest(1).add(tp.memoryRegion(), 0, 8)));
        assertThrows(IllegalStateException.class, () -> tp.completionQueue().poll(new WorkCompletions(1)));
        assertThrows(IllegalStateException.class, () -> tp.completionQueue().requestNotification(false));
        tp.queuePair().close();   // idempotent in both modes
        tp.completionQueue().close();
    }

    /** What another thread may do with the provider's queue pair and completion queue, each call's outcome. */
    private static List<Throwable> fromAnotherThread(TestProvider tp) throws Exception {
        List<Executable> calls = List.of(
                () -> tp.queuePair().postSend(new SendWorkRequest(1).opcode(SendOpcode.SEND)
                        .add(tp.memoryRegion(), 0, 64)),
                () -> tp.queuePair().postReceive(new ReceiveWorkRequest(1).add(tp.memoryRegion(), 0, 64)),
                () -> tp.completionQueue().poll(new WorkCompletions(1)),
                () -> tp.completionQueue().requestNotification(false),
                () -> tp.queuePair().close(),
                () -> tp.completionQueue().close());
        return CompletableFuture.supplyAsync(() -> calls.stream().map(c -> {
            try {
                c.execute();
                return (Throwable) null;
            } catch (Throwable t) {
                return t;
            }
        }).toList(), r -> Thread.ofPlatform().start(r)).get(30, TimeUnit.SECONDS);
    }

    @Test
    void aConfinedQueuePairAndCompletionQueueRefuseEveryOtherThreadAndStayUsable() throws Exception {
        try (TestProvider tp = TestProvider.open(ThreadConfinement.CONFINED)) {
            for (Throwable t : fromAnotherThread(tp)) {
                assertInstanceOf(WrongThreadException.class, t);
                assertTrue(t.getMessage().contains("is confined to thread \"" + Thread.currentThread().getName()),
                        t.getMessage());
            }
            assertEquals(0, tp.sends() + tp.receives() + tp.polled() + tp.notifications(), "nothing reached C");
            assertFalse(tp.queuePair().isClosed());
            assertFalse(tp.completionQueue().isClosed());
            assertEquals(0x11, CompletableFuture.supplyAsync(tp.queuePair()::qpNumber).get());   // a plain accessor
            tp.queuePair().postSend(new SendWorkRequest(1).add(tp.memoryRegion(), 0, 64));
            assertEquals(1, tp.completionQueue().poll(new WorkCompletions(1)));
            assertEquals(1, tp.sends());
        }
    }

    @Test
    void aSharedQueuePairAndCompletionQueueServeAnyThread() throws Exception {
        try (TestProvider tp = TestProvider.open(ThreadConfinement.SHARED)) {
            List<Throwable> outcomes = fromAnotherThread(tp);
            for (Throwable t : outcomes) {
                assertNull(t);
            }
            assertEquals(2, tp.sends() + tp.receives());
            assertTrue(tp.queuePair().isClosed());
        }
    }

    @Test
    void aSharedQueuePairCannotBeCreatedOnAConfinedQueueFromAnotherThread() throws Exception {
        try (TestProvider tp = TestProvider.open(ThreadConfinement.CONFINED)) {
            CompletableFuture<QueuePair> other = CompletableFuture.supplyAsync(() -> {
                try {
                    return tp.protectionDomain().queuePair(QpType.RC).completionQueue(tp.completionQueue()).create();
                } catch (RdmaException e) {
                    throw new IllegalStateException(e);
                }
            });
            Throwable t = assertThrows(Exception.class, () -> other.get(30, TimeUnit.SECONDS));
            assertInstanceOf(WrongThreadException.class, t.getCause());
        }
    }

    @Test
    void badConfinementIsRefusedBeforeAnyNativeCall() throws Exception {
        assertThrows(NullPointerException.class, () -> TestProvider.open(null));
        try (TestProvider tp = TestProvider.open()) {
            assertThrows(NullPointerException.class, () -> tp.protectionDomain().queuePair(QpType.RC).confinement(null));
            assertThrows(NullPointerException.class, () -> tp.context().completionQueue(4).confinement(null));
        }
    }
}
