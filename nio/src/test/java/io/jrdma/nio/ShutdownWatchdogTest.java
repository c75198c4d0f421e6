package io.jrdma.nio;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The watchdog's test of where a thread waits, which decides whether it is signalled: only a read of an RDMA event
 * channel counts; and a call that returns while a check runs. That it frees a close that waits for a vanished peer is tested on the device
 * ({@code NioFaultsDeviceTest.aCloseWhosePeerVanishedUnheardEndsAfterItsBound}).
 */
@Timeout(60)
class ShutdownWatchdogTest {
    @Test
    void aThreadReadingAPipeIsNotInAnRdmaWait() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "60").redirectError(Redirect.DISCARD).start();
        try (InputStream output = sleeper.getInputStream()) {
            CompletableFuture<Integer> reader = new CompletableFuture<>();
            Thread thread = Thread.ofPlatform().daemon().start(() -> {
                reader.complete(ShutdownWatchdog.threadId());
                try {
                    output.read();   // a blocking read(2) of a pipe that stays empty
                } catch (Exception ignored) {
                    // the stream closed at the test's end
                }
            });
            int tid = reader.get(10, TimeUnit.SECONDS);
            while (thread.getState() != Thread.State.RUNNABLE || !inRead(tid)) {
                Thread.sleep(10);
            }
            assertFalse(ShutdownWatchdog.readsAnRdmaEventChannel(tid), "a pipe's read is not an RDMA wait");
        } finally {
            sleeper.destroyForcibly();
        }
    }

    @Test
    void aRunningOrMissingThreadIsNotInAnRdmaWait() {
        assertFalse(ShutdownWatchdog.readsAnRdmaEventChannel(ShutdownWatchdog.threadId()));
        assertFalse(ShutdownWatchdog.readsAnRdmaEventChannel(Integer.MAX_VALUE));
    }

    @Test
    void theThreadIdIsTheKernelsForThisThread() throws Exception {
        String self = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();   // PID/task/TID
        assertEquals(self.substring(self.lastIndexOf('/') + 1), Integer.toString(ShutdownWatchdog.threadId()));
    }

    @Test
    void aCallThatReturnsDuringACheckWaitsForItOnItsCarrierAndIsNotSignalledAfter() throws Exception {
        CountDownLatch checking = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger signals = new AtomicInteger();
        ShutdownWatchdog.Watch watch = new ShutdownWatchdog.Watch("close", 7, tid -> {
            checking.countDown();
            try {
                release.await();   // a slow look at /proc, found the thread in the wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        }, tid -> signals.incrementAndGet());
        Thread checker = Thread.ofPlatform().daemon().start(watch);
        checking.await();
        Thread caller = Thread.ofVirtual().start(watch::end);   // the call returned just as the check began
        // Parked or blocked, even briefly, a virtual thread frees its carrier for another that may enter a wait the
        // signal ends.
        Set<Thread.State> states = EnumSet.noneOf(Thread.State.class);
        for (long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200); System.nanoTime() < end; ) {
            states.add(caller.getState());
        }
        assertTrue(caller.isAlive(), "the call's end waits for the check");
        assertEquals(EnumSet.of(Thread.State.RUNNABLE), states, "and keeps its carrier meanwhile");
        release.countDown();
        checker.join();
        caller.join();
        assertEquals(1, signals.get());
        assertTrue(watch.interrupted());
        watch.run();   // a check that comes after the call's end
        assertEquals(1, signals.get(), "a call that has ended is not signalled");
    }

    /** Whether thread {@code tid} sleeps in {@code read}, by its {@code /proc} syscall line. */
    private static boolean inRead(int tid) throws Exception {
        return Files.readString(Path.of("/proc/self/task/" + tid + "/syscall")).startsWith("0 ");
    }
}
