package io.jrdma.endpoint;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Many endpoints on one worker, many threads on one endpoint, and endpoints made and closed over and over, on rxe0. */
@RdmaDeviceTest
class ManyEndpointsDeviceTest {

    /** Counts messages per sender (the first long of each message names it) and checks each sender's order. */
    static final class PerSender implements EndpointHandler {
        final Map<Long, Long> next = new ConcurrentHashMap<>();
        final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        final AtomicLong total = new AtomicLong();
        final AtomicLong closed = new AtomicLong();

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage m) {
            long sender = m.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            long seq = m.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
            long expected = next.getOrDefault(sender, 0L);
            if (seq != expected) {
                errors.add("sender " + sender + ": message " + seq + " where " + expected + " was due");
            }
            next.put(sender, seq + 1);
            m.release();
            total.incrementAndGet();
        }

        @Override
        public void onClosed(Endpoint endpoint) {
            closed.incrementAndGet();
        }
    }

    @Test
    void twoHundredFiftySixEndpointsShareOneWorkersQueues(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(4, 256).withDepths(8, 2);
        PerSender receiver = new PerSender();
        try (WorkerPair pair = new WorkerPair(ip, options, options, receiver)) {
            List<CompletableFuture<Endpoint>> connects = new ArrayList<>();
            for (int i = 0; i < 256; i++) {
                connects.add(pair.client.connect(pair.listener.localAddress(), (e, m) -> m.release(), null,
                        Duration.ofSeconds(60)));
            }
            List<Endpoint> eps = new ArrayList<>();
            for (CompletableFuture<Endpoint> c : connects) {
                eps.add(c.get(120, TimeUnit.SECONDS));
            }
            int perEndpoint = 16;
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            try (Buffer b = pair.client.buffers().allocate(16 * 256 * perEndpoint)) {
                for (int seq = 0; seq < perEndpoint; seq++) {
                    for (int i = 0; i < eps.size(); i++) {
                        long at = 16L * (i * perEndpoint + seq);
                        b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, at, i);
                        b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, seq);
                        sends.add(eps.get(i).send(b.region(), b.offset() + at, 16));
                    }
                }
                for (CompletableFuture<Long> f : sends) {
                    assertEquals(16L, f.get(120, TimeUnit.SECONDS));
                }
            }
            EndpointDeviceTest.awaitCount(receiver.total, 256L * perEndpoint);
            assertEquals(List.of(), List.copyOf(receiver.errors));
            assertEquals(256, receiver.next.size());
            eps.forEach(Endpoint::close);
            for (Endpoint ep : eps) {
                ep.closeFuture().get(120, TimeUnit.SECONDS);
            }
            EndpointDeviceTest.awaitCount(receiver.closed, 256);
        }
    }

    /**
     * The connecting worker's listener takes 3 s over each request, and five requests come in just before the
     * accept's response: handled in turn they take 15 s, longer than the accepting side waits for the connection's
     * confirmation (10 s). The response must confirm the connection when it comes, not when its turn comes.
     */
    @Test
    void aConnectionIsConfirmedWhenTheResponseComesNotWhenTheWorkerHandlesIt(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults();
        int slowRequests = 5;
        CountDownLatch firstRequest = new CountDownLatch(1);
        PerSender receiver = new PerSender();
        try (WorkerPair pair = new WorkerPair(ip, options, options, receiver);
             Worker others = Worker.start(ip, options, "other-clients");
             Buffer b = pair.client.buffers().allocate(16)) {
            EndpointListener slow = pair.client.listen(new InetSocketAddress(ip, 0), 16, request -> {
                firstRequest.countDown();
                try {
                    Thread.sleep(3000);   // and leaves the request unanswered: the worker rejects it
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }).get(60, TimeUnit.SECONDS);
            ConcurrentLinkedQueue<CompletableFuture<Endpoint>> refused = new ConcurrentLinkedQueue<>();
            ConnectRequestHandler accept = pair.acceptor;
            pair.acceptor = request -> {
                for (int i = 0; i < slowRequests; i++) {
                    refused.add(others.connect(slow.localAddress(), (e, m) -> m.release(), null,
                            Duration.ofSeconds(90)));
                }
                try {
                    // The first request is being handled and the others are queued behind it when the response goes.
                    firstRequest.await(60, TimeUnit.SECONDS);
                    Thread.sleep(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                accept.onConnectRequest(request);
            };
            Endpoint ep = pair.connect((e, m) -> m.release());
            b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0L);
            b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 8, 0L);
            assertEquals(16L, ep.send(b.region(), b.offset(), 16).get(60, TimeUnit.SECONDS));
            EndpointDeviceTest.awaitCount(receiver.total, 1);
            assertEquals(slowRequests, refused.size());
            for (CompletableFuture<Endpoint> r : refused) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> r.get(120, TimeUnit.SECONDS));
                assertInstanceOf(ConnectionRejectedException.class, e.getCause());
            }
            assertEquals(0, receiver.closed.get(), "the accepted endpoint stayed open");
            ep.close();
            ep.closeFuture().get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void platformAndVirtualThreadsSubmitToOneEndpointAtOnce(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(16, 4);
        PerSender receiver = new PerSender();
        try (WorkerPair pair = new WorkerPair(ip, options, options, receiver)) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            int threads = 16;
            int each = 200;
            List<Thread> started = new ArrayList<>();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            try (Buffer b = pair.client.buffers().allocate(16 * threads * each)) {
                for (int t = 0; t < threads; t++) {
                    long sender = t;
                    Runnable body = () -> {
                        try {
                            List<CompletableFuture<Long>> mine = new ArrayList<>();
                            for (int seq = 0; seq < each; seq++) {
                                long at = 16L * (sender * each + seq);
                                b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, at, sender);
                                b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, seq);
                                mine.add(ep.send(b.region(), b.offset() + at, 16));
                            }
                            for (CompletableFuture<Long> f : mine) {
                                f.get(120, TimeUnit.SECONDS);
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                    };
                    started.add(t % 2 == 0 ? Thread.ofPlatform().start(body) : Thread.ofVirtual().start(body));
                }
                for (Thread t : started) {
                    t.join();
                }
            }
            assertEquals(List.of(), List.copyOf(failures));
            EndpointDeviceTest.awaitCount(receiver.total, (long) threads * each);
            assertEquals(List.of(), List.copyOf(receiver.errors), "each thread's messages arrive in its order");
        }
    }

    /**
     * Endpoints made, used once and closed (every other one aborted), sixteen at a time. The client's worker holds
     * exactly as many endpoints as are in use at once, the server's 256: every endpoint must be released on both
     * sides, the message each sent before its close must arrive, and the process keeps the descriptors it had.
     */
    @Test
    void endpointsMadeAndClosedOverAndOverLeaveNothingBehind(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        int lanes = 16;
        int cycles = 10_000;
        // The server releases an endpoint once the disconnect is handled and drained: it holds more than are in use.
        WorkerOptions serverOptions = WorkerOptions.defaults().withCredits(4, 256).withDepths(8, 2);
        WorkerOptions clientOptions = WorkerOptions.defaults().withCredits(4, lanes);
        PerSender receiver = new PerSender();
        try (WorkerPair pair = new WorkerPair(ip, serverOptions, clientOptions, receiver);
             Buffer b = pair.client.buffers().allocate(16 * lanes)) {
            ConcurrentLinkedQueue<Endpoint> accepted = new ConcurrentLinkedQueue<>();
            AtomicLong requests = new AtomicLong();
            pair.acceptor = request -> {
                requests.incrementAndGet();
                accepted.add(request.accept(receiver, null));
            };
            long descriptors = openDescriptors();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int lane = 0; lane < lanes; lane++) {
                long at = 16L * lane;
                int first = lane;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = first; i < cycles; i += lanes) {
                            Endpoint ep = pair.connect((e, m) -> m.release());
                            b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, at, i);
                            b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, 0);
                            ep.send(b.region(), b.offset() + at, 16).get(30, TimeUnit.SECONDS);
                            if (i % 2 == 0) {
                                ep.close();
                            } else {
                                ep.abort();
                            }
                            ep.closeFuture().get(30, TimeUnit.SECONDS);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(List.of(), List.copyOf(failures));
            for (Endpoint ep : accepted) {
                try {
                    ep.closeFuture().get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("the server's " + ep + " is still not closed", e);
                }
            }
            // Each send completed before its endpoint closed: the server handed every message over before it let go.
            assertEquals(cycles, receiver.total.get(), (cycles - receiver.next.size()) + " messages were lost");
            assertEquals(List.of(), List.copyOf(receiver.errors));
            assertEquals(cycles, accepted.size(), requests + " requests came");
            assertEquals(cycles, receiver.closed.get());
            assertEquals(descriptors, openDescriptors(), "file descriptors open before and after the cycles");
        }
    }

    private static long openDescriptors() throws java.io.IOException {
        try (var fds = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
