package io.jrdma.nio;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The device checks' answers are kept per address and operation for their TTL, and asked once by many threads. */
class DeviceChecksTest {
    private final AtomicLong now = new AtomicLong();
    private final AtomicInteger asked = new AtomicInteger();

    @Test
    void anAnswerIsKeptForItsTtlPerAddressAndOperation() throws Exception {
        InetAddress a = InetAddress.getByName("10.0.2.15");
        InetAddress b = InetAddress.getByName("10.0.2.16");
        DeviceChecks checks = new DeviceChecks((bind, address) -> {
            asked.incrementAndGet();
            return address.equals(b) ? "no device for " + address.getHostAddress() + (bind ? " bind" : "") : null;
        }, now::get);
        assertNull(checks.problem(false, a));
        assertNull(checks.problem(false, a));
        assertEquals(1, asked.get());
        assertEquals("no device for 10.0.2.16", checks.problem(false, b));
        assertEquals("no device for 10.0.2.16 bind", checks.problem(true, b));
        assertEquals("no device for 10.0.2.16", checks.problem(false, b));
        assertEquals(3, asked.get());
        now.addAndGet(DeviceChecks.TTL.toNanos() - 1);
        checks.problem(false, a);
        assertEquals(3, asked.get());
        now.incrementAndGet();
        checks.problem(false, a);
        assertEquals(4, asked.get());
    }

    @Test
    void threadsThatNeedTheSameAnswerWaitForOneCheck() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        DeviceChecks checks = new DeviceChecks((bind, address) -> {
            asked.incrementAndGet();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return "slow";
        }, now::get);
        InetAddress a = InetAddress.getByName("10.0.2.15");
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                answers.add(pool.submit(() -> checks.problem(false, a)));
            }
            Thread.sleep(200);
            release.countDown();
            for (Future<String> answer : answers) {
                assertEquals("slow", answer.get());
            }
        }
        assertEquals(1, asked.get());
    }

    @Test
    void aCheckThatThrowsIsNotKept() throws Exception {
        DeviceChecks checks = new DeviceChecks((bind, address) -> {
            if (asked.incrementAndGet() == 1) {
                throw new IllegalStateException("first");
            }
            return null;
        }, now::get);
        InetAddress a = InetAddress.getByName("10.0.2.15");
        assertThrows(IllegalStateException.class, () -> checks.problem(true, a));
        assertNull(checks.problem(true, a));
        assertEquals(2, asked.get());
    }
}
