package io.jrdma.nativetest;

import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

    @Test
    void closedObjectsRefuseTheDataPath() throws Exception {
        TestProvider tp = TestProvider.open();
        tp.close();
        assertThrows(IllegalStateException.class, () -> tp.queuePair().postSend(new SendWorkRequest(1)));
        assertThrows(IllegalStateException.class, () -> tp.completionQueue().poll(new WorkCompletions(1)));
    }
}
