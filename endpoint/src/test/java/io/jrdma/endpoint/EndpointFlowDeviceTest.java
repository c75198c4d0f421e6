package io.jrdma.endpoint;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Credits and back-pressure on rxe0: a receiver that holds its messages slows its sender, and nothing is lost. */
@RdmaDeviceTest
class EndpointFlowDeviceTest {

    /** Keeps every message until told to let go. */
    static final class HoldingReceiver implements EndpointHandler {
        final ConcurrentLinkedQueue<ReceivedMessage> held = new ConcurrentLinkedQueue<>();
        final List<Long> sequence = new ArrayList<>();
        final AtomicLong count = new AtomicLong();
        volatile boolean holding = true;

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage m) {
            sequence.add(m.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            count.incrementAndGet();
            if (holding) {
                held.add(m);
            } else {
                m.release();
            }
        }
    }

    @Test
    void aReceiverThatHoldsItsMessagesStopsTheSenderUntilItReleasesThem(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        int credits = 8;
        WorkerOptions options = WorkerOptions.defaults().withCredits(credits, 4).withDepths(16, 4);
        HoldingReceiver receiver = new HoldingReceiver();
        try (WorkerPair pair = new WorkerPair(ip, options, options, receiver)) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            int count = 5 * credits;
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            try (Buffer b = pair.client.buffers().allocate(64 * count)) {
                for (int i = 0; i < count; i++) {
                    b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 64L * i, i);
                    sends.add(ep.send(b.region(), b.offset() + 64L * i, 64));
                }
                EndpointDeviceTest.awaitCount(receiver.count, credits);
                Thread.sleep(500);
                // The sender used its credits and waits: the rest is in its backlog, not in the receive queue.
                assertEquals(credits, receiver.count.get());
                assertEquals(count - credits, (int) WorkerPair.on(pair.client, ep::backlogSize));
                assertFalse(WorkerPair.on(pair.client, ep::isWritable));
                // A try from the worker's thread is refused, posting nothing.
                assertFalse(WorkerPair.on(pair.client, () -> ep.trySend(b.region(), b.offset(), 8, null, null)));

                receiver.holding = false;
                ReceivedMessage m;
                while ((m = receiver.held.poll()) != null) {
                    m.release();                       // from the test thread: handed to the worker
                }
                for (CompletableFuture<Long> f : sends) {
                    assertEquals(64L, f.get(60, TimeUnit.SECONDS));
                }
                EndpointDeviceTest.awaitCount(receiver.count, count);
            }
            List<Long> expected = new ArrayList<>();
            for (long i = 0; i < count; i++) {
                expected.add(i);
            }
            assertEquals(expected, WorkerPair.on(pair.server, () -> List.copyOf(receiver.sequence)));
            assertTrue(WorkerPair.on(pair.client, ep::isWritable));
        }
    }

    /** Pipelines trySend from the worker's own thread, re-trying in onWritable. */
    static final class Pipeline implements EndpointHandler, OperationHandler<Object> {
        final Buffer buffer;
        final int total;
        int posted;
        int completed;
        int refusals;
        final CompletableFuture<Integer> done = new CompletableFuture<>();

        Pipeline(Buffer buffer, int total) {
            this.buffer = buffer;
            this.total = total;
        }

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage message) {
            message.release();
        }

        void pump(Endpoint ep) {
            try {
                while (posted < total) {
                    buffer.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, posted);
                    if (!ep.trySend(buffer.region(), buffer.offset(), 64, this, null)) {
                        refusals++;
                        return;
                    }
                    posted++;
                }
            } catch (Exception e) {
                done.completeExceptionally(e);
            }
        }

        @Override
        public void onWritable(Endpoint endpoint) {
            pump(endpoint);
        }

        @Override
        public void completed(long value, Object attachment) {
            if (++completed == total) {
                done.complete(refusals);
            }
        }

        @Override
        public void failed(Throwable failure, Object attachment) {
            done.completeExceptionally(failure);
        }
    }

    @Test
    void handlersPipelineFromTheWorkersThreadAndResumeWhenWritable(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(16, 4).withDepths(32, 4);
        AtomicLong messages = new AtomicLong();
        EndpointHandler receiver = (endpoint, m) -> {
            messages.incrementAndGet();
            m.release();
        };
        try (WorkerPair pair = new WorkerPair(ip, options, options, receiver)) {
            int total = 3000;
            try (Buffer b = pair.client.buffers().allocate(64)) {
                Pipeline pipeline = new Pipeline(b, total);
                Endpoint ep = pair.connect(pipeline);
                pair.client.execute(() -> pipeline.pump(ep));
                int refusals = pipeline.done.get(120, TimeUnit.SECONDS);
                assertTrue(refusals > 0, "3000 sends through 16 credits were never refused");
                EndpointDeviceTest.awaitCount(messages, total);
            }
        }
    }
}
