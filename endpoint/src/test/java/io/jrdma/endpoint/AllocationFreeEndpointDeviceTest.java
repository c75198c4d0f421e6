package io.jrdma.endpoint;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handler flavour allocates nothing in steady state, on either side: a ping-pong of messages between a worker
 * driven by the test's own thread ({@link Worker#progress()}) and an echoing worker on a thread of its own.
 */
@RdmaDeviceTest
class AllocationFreeEndpointDeviceTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Echoes every message from a buffer of its own, releasing the message at once. */
    static final class Echo implements EndpointHandler, OperationHandler<Object> {
        Buffer reply;

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage m) {
            int length = m.length();
            m.release();
            try {
                if (!endpoint.trySend(reply.region(), reply.offset(), length, this, null)) {
                    throw new IllegalStateException("the echo was refused");
                }
            } catch (io.jrdma.ibverbs.RdmaException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void completed(long value, Object attachment) {
        }

        @Override
        public void failed(Throwable failure, Object attachment) {
        }
    }

    /** The client's side: counts echoes and completions. */
    static final class Client implements EndpointHandler, OperationHandler<Object> {
        long echoes;
        long sent;

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage m) {
            echoes++;
            m.release();
        }

        @Override
        public void completed(long value, Object attachment) {
            sent++;
        }

        @Override
        public void failed(Throwable failure, Object attachment) {
            throw new IllegalStateException(failure);
        }
    }

    @Test
    void aMessagePingPongAllocatesNothingOnEitherWorker(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(8, 2).withSpin(Duration.ofSeconds(30));
        Echo echo = new Echo();
        try (Worker server = Worker.start(ip, options, "echo-worker");
             Worker client = Worker.open(ip, options)) {
            echo.reply = server.buffers().allocate(64);
            long serverThread = WorkerPair.on(server, () -> Thread.currentThread().threadId());
            EndpointListener listener = server.listen(new java.net.InetSocketAddress(ip, 0), 4,
                    r -> r.accept(echo, null)).get(60, java.util.concurrent.TimeUnit.SECONDS);
            Client handler = new Client();
            var connecting = client.connect(listener.localAddress(), handler, null, Duration.ofSeconds(30));
            while (!connecting.isDone()) {
                client.await(Duration.ofMillis(10));
            }
            Endpoint ep = connecting.join();
            Buffer ping = client.buffers().allocate(64);
            List<Long> clientWindows = new ArrayList<>();
            List<Long> serverWindows = new ArrayList<>();
            for (int window = 0; window < 8; window++) {
                long clientBefore = THREADS.getCurrentThreadAllocatedBytes();
                long serverBefore = THREADS.getThreadAllocatedBytes(serverThread);
                for (int i = 0; i < 250; i++) {
                    long echoes = handler.echoes;
                    if (!ep.trySend(ping.region(), ping.offset(), 64, handler, null)) {
                        throw new AssertionError("a ping was refused");
                    }
                    long deadline = System.nanoTime() + 30_000_000_000L;
                    while (handler.echoes == echoes) {
                        client.progress();
                        if (System.nanoTime() - deadline > 0) {
                            throw new AssertionError("no echo within 30 s");
                        }
                    }
                }
                clientWindows.add(THREADS.getCurrentThreadAllocatedBytes() - clientBefore);
                serverWindows.add(THREADS.getThreadAllocatedBytes(serverThread) - serverBefore);
            }
            assertTrue(clientWindows.contains(0L), "bytes the client's thread allocated per 250 round trips: "
                    + clientWindows);
            assertTrue(serverWindows.contains(0L), "bytes the echoing worker's thread allocated per 250 round trips: "
                    + serverWindows);
            ping.close();
            echo.reply.close();
        }
    }
}
