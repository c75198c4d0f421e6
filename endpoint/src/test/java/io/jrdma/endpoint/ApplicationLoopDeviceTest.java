package io.jrdma.endpoint;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker in the application's own event loop: the test thread waits in poll(2) on {@link Worker#fileDescriptor()}
 * after {@link Worker#arm()}, and does nothing else to learn of connection events, completions and other threads'
 * tasks.
 */
@RdmaDeviceTest
@SuppressWarnings("restricted")
class ApplicationLoopDeviceTest {
    private static final MethodHandle POLL = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().findOrThrow("poll"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT));
    private static final long WAIT_MILLIS = 30_000;

    /** poll(2) on one descriptor for reading: whether it became readable within {@code millis}. */
    static boolean readable(int fd, int millis) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = arena.allocate(8, 4);
            pollfd.set(ValueLayout.JAVA_INT, 0, fd);
            pollfd.set(ValueLayout.JAVA_SHORT, 4, (short) 1);
            int rc;
            do {
                rc = (int) POLL.invokeExact(pollfd, 1L, millis);
            } while (rc < 0);
            return rc > 0;
        }
    }

    /** One turn of the application's loop: wait on the descriptor if the worker may sleep, then progress. */
    static int turn(Worker worker) throws Throwable {
        if (worker.arm()) {
            assertTrue(readable(worker.fileDescriptor(), (int) WAIT_MILLIS),
                    "the descriptor stayed quiet for 30 s while work was expected");
        }
        return worker.progress();
    }

    @Test
    void connectsExchangesAndTakesTasksThroughTheDescriptorAlone(Device device) throws Throwable {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(8, 2);
        AllocationFreeEndpointDeviceTest.Echo echo = new AllocationFreeEndpointDeviceTest.Echo();
        try (Worker server = Worker.start(ip, options, "echo-worker");
             Worker client = Worker.open(ip, options)) {
            echo.reply = server.buffers().allocate(64);
            EndpointListener listener = server.listen(new InetSocketAddress(ip, 0), 4,
                    r -> r.accept(echo, null)).get(60, TimeUnit.SECONDS);
            AllocationFreeEndpointDeviceTest.Client handler = new AllocationFreeEndpointDeviceTest.Client();
            CompletableFuture<Endpoint> connecting = client.connect(listener.localAddress(), handler, null,
                    Duration.ofSeconds(30));
            while (!connecting.isDone()) {
                turn(client);
            }
            Endpoint ep = connecting.join();
            Buffer ping = client.buffers().allocate(64);
            for (int i = 0; i < 200; i++) {
                long echoes = handler.echoes;
                assertTrue(ep.trySend(ping.region(), ping.offset(), 64, handler, null), "ping " + i + " refused");
                while (handler.echoes == echoes) {
                    turn(client);
                }
            }
            assertEquals(200, handler.echoes);

            // Another thread's task reaches the loop, and the descriptor is quiet before and after.
            AtomicBoolean ran = new AtomicBoolean();
            assertTrue(quiet(client), "the descriptor stays readable after progress() took its work");
            Thread.ofPlatform().start(() -> {
                sleepQuietly(100);
                client.execute(() -> ran.set(true));
            });
            while (!ran.get()) {
                turn(client);
            }
            assertTrue(quiet(client), "the descriptor stays readable after a task");

            // A graceful close: the disconnect's CM events come through the descriptor too.
            ep.close();
            while (!ep.closeFuture().isDone()) {
                turn(client);
            }
            assertFalse(ep.isOpen());
            ping.close();
            echo.reply.close();
        }
    }

    /**
     * Arms the worker and sees the descriptor quiet. A timer that happens to expire between the arm and the look
     * makes it readable once; a descriptor that nothing drains stays readable on every try.
     */
    private static boolean quiet(Worker worker) throws Throwable {
        for (int i = 0; i < 5; i++) {
            if (worker.arm() && !readable(worker.fileDescriptor(), 0)) {
                return true;
            }
            worker.progress();
        }
        return false;
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void armBelongsToTheWorkersThread(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        try (Worker worker = Worker.start(ip, WorkerOptions.defaults(), "own-thread")) {
            assertThrows(WrongThreadException.class, worker::arm);
            assertTrue(worker.fileDescriptor() >= 0);
        }
    }
}
