package io.jrdma.endpoint;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * One listener, several workers, on rxe0: requests its handler defers are accepted by other workers on their own
 * threads, and the endpoints are wholly theirs (messages, the peer's close); deferred requests rejected from
 * another thread, or left unanswered until the listener's worker closes, fail their clients' connects.
 */
@RdmaDeviceTest
class AcceptOnAnotherWorkerDeviceTest {

    @Test
    void deferredRequestsAreAcceptedByTheWorkersTheyAreHandedTo(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(8, 8);
        int connections = 4;
        int messages = 200;
        EndpointDeviceTest.CheckingReceiver[] receivers = new EndpointDeviceTest.CheckingReceiver[connections];
        AtomicLong elsewhere = new AtomicLong();
        AtomicLong closedOnTheirWorkers = new AtomicLong();
        try (WorkerPair pair = new WorkerPair(ip, options, options, (e, m) -> m.release());
             Worker first = Worker.start(ip, options, "accepting-worker-0");
             Worker second = Worker.start(ip, options, "accepting-worker-1")) {
            Worker[] accepting = {first, second};
            List<CompletableFuture<Endpoint>> accepted = new ArrayList<>();
            pair.acceptor = request -> {
                request.defer();
                int n = accepted.size();
                Worker target = accepting[n % 2];
                receivers[n] = new EndpointDeviceTest.CheckingReceiver();
                EndpointHandler receiver = new EndpointHandler() {
                    @Override
                    public void onMessage(Endpoint endpoint, ReceivedMessage m) {
                        if (!target.inThread()) {
                            elsewhere.incrementAndGet();
                        }
                        receivers[n].onMessage(endpoint, m);
                    }

                    @Override
                    public void onClosed(Endpoint endpoint) {
                        if (target.inThread()) {
                            closedOnTheirWorkers.incrementAndGet();
                        }
                    }
                };
                CompletableFuture<Endpoint> ep = new CompletableFuture<>();
                accepted.add(ep);
                target.execute(() -> {
                    try {
                        ep.complete(request.acceptOn(target, receiver, new byte[] {(byte) n}));
                    } catch (Exception e) {
                        ep.completeExceptionally(e);
                    }
                });
            };

            List<Endpoint> clients = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                Endpoint ep = pair.connect((e, m) -> m.release());
                assertArrayEquals(new byte[] {(byte) i}, ep.peerPrivateData(), "the accept's private data");
                clients.add(ep);
            }
            for (int i = 0; i < connections; i++) {
                assertSame(accepting[i % 2], accepted.get(i).get(60, TimeUnit.SECONDS).worker());
            }
            // Checked messages over every connection, all in flight at once.
            List<Buffer> buffers = new ArrayList<>();
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            for (int i = 0; i < messages; i++) {
                for (Endpoint ep : clients) {
                    Buffer b = pair.client.buffers().allocate(1024);
                    EndpointDeviceTest.fill(b.segment(), i, 1024);
                    buffers.add(b);
                    sends.add(ep.send(b.region(), b.offset(), 1024));
                }
            }
            for (CompletableFuture<Long> f : sends) {
                assertEquals(1024L, f.get(60, TimeUnit.SECONDS));
            }
            buffers.forEach(Buffer::close);
            for (EndpointDeviceTest.CheckingReceiver r : receivers) {
                EndpointDeviceTest.awaitCount(r.messages, messages);
                assertEquals(List.of(), List.copyOf(r.errors));
            }
            assertEquals(0, elsewhere.get(), "messages were delivered off their endpoint's worker");

            // The peer's close reaches the endpoints on their own workers, through the channel their ids moved to.
            for (Endpoint ep : clients) {
                ep.close();
            }
            EndpointDeviceTest.awaitCount(closedOnTheirWorkers, connections);
        }
    }

    @Test
    void aDeferredRequestIsRejectedFromAnyThreadOrWhenItsListenersWorkerCloses(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(4, 4);
        CompletableFuture<ConnectRequest> kept = new CompletableFuture<>();
        try (WorkerPair pair = new WorkerPair(ip, options, options, (e, m) -> m.release())) {
            pair.acceptor = request -> {
                request.defer();
                kept.complete(request);
            };
            CompletableFuture<Endpoint> connecting = pair.client.connect(pair.listener.localAddress(),
                    (e, m) -> m.release(), null, Duration.ofSeconds(30));
            ConnectRequest request = kept.get(60, TimeUnit.SECONDS);
            assertThrows(IllegalStateException.class, () -> WorkerPair.on(pair.server,
                    () -> request.accept((e, m) -> m.release(), null)), "a deferred request is accepted on a worker");
            request.reject("later".getBytes());                              // from the test's thread
            ExecutionException rejected = assertThrows(ExecutionException.class,
                    () -> connecting.get(60, TimeUnit.SECONDS));
            ConnectionRejectedException r = assertInstanceOf(ConnectionRejectedException.class, rejected.getCause());
            assertArrayEquals("later".getBytes(), r.privateData());
            assertThrows(IllegalStateException.class, () -> request.reject(null));
            assertThrows(IllegalStateException.class, () -> WorkerPair.on(pair.server,
                    () -> request.acceptOn(pair.server, (e, m) -> m.release(), null)));
            assertThrows(WrongThreadException.class, () -> request.acceptOn(pair.server, (e, m) -> m.release(), null));

            // A request deferred and never answered: the listener's worker rejects it as it closes.
            CompletableFuture<ConnectRequest> forgotten = new CompletableFuture<>();
            pair.acceptor = req -> {
                req.defer();
                forgotten.complete(req);
            };
            CompletableFuture<Endpoint> waiting = pair.client.connect(pair.listener.localAddress(),
                    (e, m) -> m.release(), null, Duration.ofSeconds(30));
            forgotten.get(60, TimeUnit.SECONDS);
            pair.exposed.close();
            pair.server.close();
            ExecutionException dropped = assertThrows(ExecutionException.class,
                    () -> waiting.get(60, TimeUnit.SECONDS));
            assertInstanceOf(ConnectionRejectedException.class, dropped.getCause());
        }
    }
}
