package io.jrdma.endpoint;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.ChildServer;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.rdmacm.CmEventException;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;
import io.jrdma.rdmacm.RemoteRegion;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Endpoints on rxe0 when things go wrong: a killed peer, rejects, a peer that is no endpoint, bad input. */
@RdmaDeviceTest
class EndpointFailureDeviceTest {
    /** Releases every message and keeps the first failure its endpoint hears of, and the endpoint once closed. */
    static class FailureCatcher implements EndpointHandler {
        final CompletableFuture<Throwable> failure = new CompletableFuture<>();
        final CompletableFuture<Endpoint> closed = new CompletableFuture<>();

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage message) {
            message.release();
        }

        @Override
        public void onError(Endpoint endpoint, Throwable failure) {
            this.failure.complete(failure);
        }

        @Override
        public void onClosed(Endpoint endpoint) {
            closed.complete(endpoint);
        }
    }

    @Test
    void aPeerThatClosesEndsTheEndpointWithoutAnErrorAndTheAddressesRemain(Device device) throws Exception {
        FailureCatcher serverSide = new FailureCatcher();
        try (WorkerPair pair = new WorkerPair(DeviceAddresses.ipv4(device), WorkerOptions.defaults(),
                WorkerOptions.defaults(), serverSide)) {
            FailureCatcher clientSide = new FailureCatcher();
            Endpoint ep = pair.connect(clientSide);
            try (Buffer buf = pair.client.buffers().allocate(64)) {
                ep.send(buf.region(), buf.offset(), 64).get(60, TimeUnit.SECONDS);
            }
            assertEquals(WorkerOptions.defaults().messageSize(), ep.peerMessageSize());
            ep.close();
            ep.closeFuture().get(60, TimeUnit.SECONDS);
            Endpoint server = serverSide.closed.get(60, TimeUnit.SECONDS);
            // Both ends closed and released: the addresses are the connection's, as they were.
            assertEquals(DeviceAddresses.ipv4(device), ep.localAddress().getAddress());
            assertTrue(ep.localAddress().getPort() > 0, "the client's port: " + ep.localAddress());
            assertEquals(ep.localAddress(), server.peerAddress());
            assertEquals(pair.listener.localAddress(), ep.peerAddress());
            assertEquals(pair.listener.localAddress(), server.localAddress());
            assertTrue(server.isClosedByPeer(), "the server's endpoint knows its peer closed it");
            assertFalse(serverSide.failure.isDone(), () -> "an orderly close is no error, but the server heard "
                    + serverSide.failure.getNow(null));
            assertFalse(ep.isClosedByPeer(), "the client closed its own endpoint");
            assertFalse(clientSide.failure.isDone(), () -> "the client heard " + clientSide.failure.getNow(null));
        }
    }


    /**
     * A server that sends large messages as it accepts and closes at once ends the client's endpoint in order, after
     * they were handed over whole: their last "done" may reach the client's completion queue after the disconnect,
     * and a credit update the client posted as the server left goes unanswered and flushes what queued behind it.
     */
    @Test
    void largeMessagesWrittenJustBeforeAnOrderlyCloseArriveWholeAndTheEndIsNoError(Device device) throws Exception {
        try (WorkerPair pair = new WorkerPair(DeviceAddresses.ipv4(device), WorkerOptions.defaults(),
                WorkerOptions.defaults(), new FailureCatcher());
             Buffer out = pair.server.buffers().allocate(PATTERNED)) {
            sendPatternedAndClose(pair, out, false);
            for (int round = 0; round < 100; round++) {
                int r = round;
                PatternRecorder clientSide = new PatternRecorder();
                Endpoint ep = pair.connect(clientSide);
                ep.closeFuture().get(60, TimeUnit.SECONDS);
                assertFalse(clientSide.failure.isDone(), () -> "round " + r + ": the orderly close was heard as "
                        + clientSide.failure.getNow(null));
                assertTrue(ep.isClosedByPeer());
                assertEquals(CLOSING_SIZES, clientSide.lengths, "round " + r);
                assertEquals(List.of(true, true, true, true), clientSide.intact, "round " + r);
            }
        }
    }

    /**
     * The same server, closing once the client's first message arrived, while the client keeps 64 sends of its own
     * in flight: the server's disconnect cuts them off and breaks the client's endpoint, but what the server sent
     * before it closed is handed over first, whole and in order, as small messages arriving before a break are.
     * (A server that closed at once could disconnect before the client's first send, which the endpoint then
     * refuses, and nothing would be cut off.) When the disconnect does not reach the client, its
     * sends fail after the transport's retries instead; its queue pair then still has a large message's window
     * bound, and releasing the endpoint must not wait for that (rxe keeps a bound window's queue pair for 50 s,
     * with the worker's thread), so each close is given 20 s.
     */
    @Test
    void whatAPeerSentBeforeItClosedIsHandedOverEvenWhenTheCloseCutsThisSidesSendsOff(Device device)
            throws Exception {
        try (WorkerPair pair = new WorkerPair(DeviceAddresses.ipv4(device), WorkerOptions.defaults(),
                WorkerOptions.defaults(), new FailureCatcher());
             Buffer out = pair.server.buffers().allocate(PATTERNED);
             Buffer small = pair.client.buffers().allocate(64)) {
            sendPatternedAndClose(pair, out, true);
            for (int round = 0; round < 10; round++) {
                int r = round;
                PatternRecorder clientSide = new PatternRecorder();
                Endpoint ep = pair.connect(clientSide);
                for (int i = 0; i < 64; i++) {
                    keepSending(ep, small);
                }
                ep.closeFuture().get(20, TimeUnit.SECONDS);
                EndpointException cut = assertInstanceOf(EndpointException.class, clientSide.failure.getNow(null),
                        "round " + r + ": the cut-off sends were not reported");
                assertTrue(cut.isPeerDisconnect() || cut.status() != null,
                        () -> "round " + r + ": neither the peer's disconnect nor a failed completion: " + cut);
                assertEquals(CLOSING_SIZES, clientSide.lengths, "round " + r);
                assertEquals(List.of(true, true, true, true), clientSide.intact, "round " + r);
            }
        }
    }

    private static final int PATTERNED = 300_000;
    /** Large and small messages, sent as the server accepts. */
    private static final List<Integer> CLOSING_SIZES = List.of(100_000, 5000, PATTERNED, 64);

    /**
     * The server accepts, sends {@link #CLOSING_SIZES} of a pattern, and closes at once, or, {@code onFirstMessage},
     * when the client's first message arrives.
     */
    private static void sendPatternedAndClose(WorkerPair pair, Buffer out, boolean onFirstMessage) {
        for (int i = 0; i < PATTERNED; i++) {
            out.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        }
        pair.acceptor = request -> {
            Endpoint server = request.accept(onFirstMessage ? new FailureCatcher() {
                @Override
                public void onMessage(Endpoint endpoint, ReceivedMessage message) {
                    message.release();
                    endpoint.close();
                }
            } : new FailureCatcher(), null);
            for (int size : CLOSING_SIZES) {
                server.send(out.region(), out.offset(), size);
            }
            if (!onFirstMessage) {
                server.close();
            }
        };
    }

    /** Sends 64 B, and again each time that completes, until the endpoint refuses. */
    private static void keepSending(Endpoint ep, Buffer small) {
        CompletableFuture<Long> sent;
        try {
            sent = ep.send(small.region(), small.offset(), 64);
        } catch (IllegalStateException disconnected) {
            return;   // the peer's close got here first
        }
        sent.whenComplete((n, failure) -> {
            if (failure == null) {
                keepSending(ep, small);
            }
        });
    }

    /** Records the length of each message received and whether it holds the server's pattern. */
    private static class PatternRecorder extends FailureCatcher {
        final List<Integer> lengths = new ArrayList<>();
        final List<Boolean> intact = new ArrayList<>();

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage message) {
            MemorySegment m = message.segment();
            boolean same = true;
            for (int i = 0; i < message.length() && same; i += 997) {
                same = m.get(ValueLayout.JAVA_BYTE, i) == (byte) (i * 7);
            }
            lengths.add(message.length());
            intact.add(same);
            message.release();
        }
    }

    /**
     * A server that greets and closes at once, before the client confirmed the connection (the accepted endpoint is
     * still connecting), loses nothing: the greeting goes once the connection is up, then the endpoint closes.
     */
    @Test
    void anEndpointClosedAsItIsAcceptedSendsWhatItQueuedThenCloses(Device device) throws Exception {
        FailureCatcher serverSide = new FailureCatcher();
        byte[] greeting = "greetings from a server that closes at once".getBytes(StandardCharsets.US_ASCII);
        try (WorkerPair pair = new WorkerPair(DeviceAddresses.ipv4(device), WorkerOptions.defaults(),
                WorkerOptions.defaults(), serverSide)) {
            CompletableFuture<Long> greeted = new CompletableFuture<>();
            pair.acceptor = request -> {
                Endpoint accepted = request.accept(serverSide, null);
                Buffer buffer = pair.server.buffers().allocate(greeting.length);
                MemorySegment.copy(MemorySegment.ofArray(greeting), 0, buffer.segment(), 0, greeting.length);
                accepted.send(buffer.region(), buffer.offset(), greeting.length).whenComplete((n, failure) -> {
                    buffer.close();
                    if (failure != null) {
                        greeted.completeExceptionally(failure);
                    } else {
                        greeted.complete(n);
                    }
                });
                accepted.close();
            };
            CompletableFuture<byte[]> received = new CompletableFuture<>();
            FailureCatcher clientSide = new FailureCatcher() {
                @Override
                public void onMessage(Endpoint endpoint, ReceivedMessage message) {
                    received.complete(message.segment().asSlice(0, message.length()).toArray(ValueLayout.JAVA_BYTE));
                    message.release();
                }
            };
            Endpoint ep = pair.connect(clientSide);
            assertArrayEquals(greeting, received.get(60, TimeUnit.SECONDS));
            assertEquals(greeting.length, greeted.get(60, TimeUnit.SECONDS));
            clientSide.closed.get(60, TimeUnit.SECONDS);
            assertTrue(ep.isClosedByPeer(), "the server's close reached the client as an orderly close");
            serverSide.closed.get(60, TimeUnit.SECONDS);
            assertFalse(serverSide.failure.isDone(), () -> "the server heard " + serverSide.failure.getNow(null));
            assertFalse(clientSide.failure.isDone(), () -> "the client heard " + clientSide.failure.getNow(null));
        }
    }

    /**
     * A client that gets the worker's accept and never completes the connection (it never reads its connection
     * manager's events, so its side never confirms): the accepted endpoint, the application's from the accept on,
     * breaks with an error, and the message it queued fails, where it used to end as quietly as an orderly close.
     */
    @Test
    void anAcceptedConnectionThePeerNeverCompletesBreaksItsEndpoint(Device device) throws Exception {
        WorkerOptions options = WorkerOptions.defaults();
        FailureCatcher serverSide = new FailureCatcher();
        CompletableFuture<Long> greeted = new CompletableFuture<>();
        try (WorkerPair pair = new WorkerPair(DeviceAddresses.ipv4(device), options, options, serverSide);
             Buffer greeting = pair.server.buffers().allocate(64);
             EventChannel events = EventChannel.create();
             CmId raw = CmId.create(events, PortSpace.TCP)) {
            pair.acceptor = request -> request.accept(serverSide, null)
                    .send(greeting.region(), greeting.offset(), 64).whenComplete((n, failure) -> {
                        if (failure != null) {
                            greeted.completeExceptionally(failure);
                        } else {
                            greeted.complete(n);
                        }
                    });
            raw.resolve(pair.listener.localAddress(), Duration.ofSeconds(5));
            ProtectionDomain pd = raw.context().allocateProtectionDomain();
            try (pd; CompletionQueue cq = raw.context().createCompletionQueue(4);
                 QueuePair qp = raw.createQueuePair(pd.queuePair(QpType.RC).completionQueue(cq).capacity(4, 4))) {
                raw.connect(ConnectionParameters.defaults().withPrivateData(
                        new Handshake(4, 1, options.messageSize(), 1, 4096, new byte[0]).encode()));

                serverSide.closed.get(60, TimeUnit.SECONDS);
                assertInstanceOf(EndpointException.class, serverSide.failure.getNow(null),
                        "the endpoint ended without an error");
                ExecutionException cutOff = assertThrows(ExecutionException.class,
                        () -> greeted.get(10, TimeUnit.SECONDS));
                assertInstanceOf(EndpointException.class, cutOff.getCause());
            }
        }
    }

    @Test
    void aKilledPeerFailsEveryOperationInFlightAndTheEndpointCloses(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        try (ChildServer child = ChildServer.start(EndpointServerMain.class, ip.getHostAddress());
             Worker client = Worker.start(ip, WorkerOptions.defaults()
                     .withFailureDetection(Duration.ofSeconds(1), 14, 3), "client-worker")) {
            int port = child.port();
            FailureCatcher catcher = new FailureCatcher();
            Endpoint ep = client.connect(new InetSocketAddress(ip, port), catcher, null, Duration.ofSeconds(30))
                    .get(60, TimeUnit.SECONDS);
            RemoteRegion remote = WorkerPair.remote(ep);
            MemoryRegion local = client.protectionDomain().allocate(WorkerPair.EXPOSED, Access.LOCAL_WRITE);
            try (local) {
                List<CompletableFuture<Long>> ops = new ArrayList<>();
                for (int i = 0; i < 400; i++) {
                    ops.add(ep.read(local, 0, 64 * 1024, remote, 0));
                    ops.add(ep.send(local, 0, 1024));
                }
                ops.getFirst().get(30, TimeUnit.SECONDS);    // the peer answered: the rest is in flight or queued
                child.kill();
                int failed = 0;
                for (CompletableFuture<Long> f : ops) {
                    try {
                        f.get(60, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        assertInstanceOf(EndpointException.class, e.getCause());
                        failed++;
                    }
                }
                assertTrue(failed > 0, "no operation failed after the peer was killed");
                ep.closeFuture().get(60, TimeUnit.SECONDS);
                assertNotNull(catcher.failure.getNow(null), "the handler heard of no error");
                assertFalse(ep.isOpen());
                assertThrows(IllegalStateException.class, () -> ep.send(local, 0, 8));
            }
        }
    }

    @Test
    void aRejectCarriesItsPrivateDataAndAnUnansweredRequestIsRejected(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(4, 4);
        try (WorkerPair pair = new WorkerPair(ip, options, options, (e, m) -> m.release())) {
            byte[] reason = "go away".getBytes();
            pair.acceptor = request -> {
                assertArrayEquals(new byte[] {1, 2, 3}, request.privateData());
                request.reject(reason);
            };
            ExecutionException rejected = assertThrows(ExecutionException.class, () -> pair.client
                    .connect(pair.listener.localAddress(), (e, m) -> m.release(), new byte[] {1, 2, 3},
                            Duration.ofSeconds(30)).get(60, TimeUnit.SECONDS));
            ConnectionRejectedException r = assertInstanceOf(ConnectionRejectedException.class, rejected.getCause());
            assertArrayEquals(reason, r.privateData());

            pair.acceptor = request -> { };
            ExecutionException ignored = assertThrows(ExecutionException.class, () -> pair.connect(
                    (e, m) -> m.release()));
            assertInstanceOf(ConnectionRejectedException.class, ignored.getCause());

            // Nobody listens on the port: the connect fails, it does not hang.
            InetSocketAddress nobody = new InetSocketAddress(ip, pair.listener.localAddress().getPort() + 1);
            ExecutionException late = assertThrows(ExecutionException.class, () -> pair.client.connect(nobody,
                    (e, m) -> m.release(), null, Duration.ofSeconds(3)).get(30, TimeUnit.SECONDS));
            assertInstanceOf(IOException.class, late.getCause());

            // The listener still serves after all that.
            pair.acceptor = pair.accepting((e, m) -> m.release());
            Endpoint ep = pair.connect((e, m) -> m.release());
            assertTrue(ep.isOpen());
        }
    }

    @Test
    void aPeerWithoutTheHandshakeIsRejectedAndCostsNothing(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(4, 4);
        try (WorkerPair pair = new WorkerPair(ip, options, options, (e, m) -> m.release());
             EventChannel events = EventChannel.create();
             CmId raw = CmId.create(events, PortSpace.TCP)) {
            raw.resolve(pair.listener.localAddress(), Duration.ofSeconds(5));
            ProtectionDomain pd = raw.context().allocateProtectionDomain();
            try (pd; var cq = raw.context().createCompletionQueue(4);
                 var qp = raw.createQueuePair(pd.queuePair(io.jrdma.ibverbs.QpType.RC).completionQueue(cq)
                         .capacity(2, 2))) {
                raw.connect(ConnectionParameters.defaults().withPrivateData("not a handshake at all".getBytes()));
                CmEventException e = assertThrows(CmEventException.class,
                        () -> raw.await(Duration.ofSeconds(10), CmEventType.ESTABLISHED));
                assertEquals(CmEventType.REJECTED, e.event().type());
            }
            Endpoint ep = pair.connect((e, m) -> m.release());
            try (Buffer b = pair.client.buffers().allocate(64)) {
                assertEquals(64L, ep.send(b.region(), b.offset(), 64).get(30, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void aPeerThatInvitesAMessageOfNoBytesBreaksOnlyItsOwnEndpoint(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(4, 4);
        FailureCatcher victim = new FailureCatcher();
        try (WorkerPair pair = new WorkerPair(ip, options, options, victim)) {
            try (RawPeer raw = new RawPeer(pair, options)) {
                // A handshake like a worker's, then a mailbox entry written by hand: an invitation of no bytes.
                raw.ring(1, raw.mine.address(), raw.mine.remoteKey(), 0, Rendezvous.INVITATION);

                Throwable failure = victim.failure.get(30, TimeUnit.SECONDS);
                assertInstanceOf(EndpointException.class, failure);
                assertTrue(failure.getMessage().contains("invited"), failure.getMessage());
            }
            // The worker lives on: a well-behaved endpoint on it works.
            Endpoint ep = pair.connect((e, m) -> m.release());
            try (Buffer b = pair.client.buffers().allocate(64)) {
                assertEquals(64L, ep.send(b.region(), b.offset(), 64).get(30, TimeUnit.SECONDS));
            }
            assertFalse(pair.server.isClosed());
        }
    }

    /**
     * A peer that advertises a large message, is invited and says it wrote it without writing a byte: the message it
     * gets handed over is zeros, not what the pooled buffer held before (here another endpoint's large message).
     */
    @Test
    void aLargeMessageThePeerDidNotWriteHandsOverZerosNotWhatThePoolHeld(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(4, 4);
        int length = 64 << 10;
        CompletableFuture<byte[]> honest = new CompletableFuture<>();
        CompletableFuture<byte[]> unwritten = new CompletableFuture<>();
        EndpointHandler copies = new FailureCatcher() {
            @Override
            public void onMessage(Endpoint endpoint, ReceivedMessage message) {
                byte[] bytes = message.segment().asSlice(0, message.length()).toArray(ValueLayout.JAVA_BYTE);
                message.release();   // its pooled buffer goes back before the second large message is invited
                (honest.isDone() ? unwritten : honest).complete(bytes);
            }
        };
        try (WorkerPair pair = new WorkerPair(ip, options, options, copies)) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            try (Buffer marked = pair.client.buffers().allocate(length)) {
                marked.segment().asSlice(0, length).fill((byte) 0x5A);
                ep.send(marked.region(), marked.offset(), length).get(30, TimeUnit.SECONDS);
            }
            assertEquals(length, honest.get(30, TimeUnit.SECONDS).length);

            try (RawPeer raw = new RawPeer(pair, options)) {
                // Entry 1: the advertisement of a large message; the worker invites it into entry 1 of this side.
                raw.ring(1, 0, 0, length, 0);
                MemorySegment invitation = raw.mine.segment().asSlice(Worker.MAILBOX, Rendezvous.ENTRY);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                VarHandle number = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();
                while ((long) number.getVolatile(invitation, 24L) != 1L) {
                    assertTrue(System.nanoTime() < deadline, "the worker invited the large message");
                    Thread.onSpinWait();
                }
                assertEquals(Rendezvous.INVITATION, invitation.get(Rendezvous.INT, 16));
                // Entry 2: done, with the invitation's key, and not one byte written through it.
                raw.ring(2, 0, invitation.get(Rendezvous.INT, 8), 0, Rendezvous.DONE);

                byte[] handed = unwritten.get(30, TimeUnit.SECONDS);
                assertEquals(length, handed.length);
                assertArrayEquals(new byte[length], handed, "what the peer did not write reads as zeros");
            }
        }
    }

    /**
     * A queue pair of no worker's, connected to a worker's listener as a worker's endpoint connects (its handshake
     * names {@link #mine} as its words, which the worker may write at once), past the first rings: its own, then the
     * worker's, after which it may write the worker's words. For tests that write what a worker would not.
     */
    private static final class RawPeer implements AutoCloseable {
        EventChannel events;
        CmId id;
        ProtectionDomain pd;
        CompletionQueue cq;
        QueuePair qp;
        MemoryRegion mine;
        /** The worker's handshake. */
        Handshake server;

        RawPeer(WorkerPair pair, WorkerOptions options) throws Exception {
            try {
                events = EventChannel.create();
                id = CmId.create(events, PortSpace.TCP);
                id.resolve(pair.listener.localAddress(), Duration.ofSeconds(5));
                pd = id.context().allocateProtectionDomain();
                cq = id.context().createCompletionQueue(16);
                qp = id.createQueuePair(pd.queuePair(QpType.RC).completionQueue(cq).capacity(8, 4));
                mine = pd.allocate(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
                for (int i = 0; i < 4; i++) {   // for the worker's rings
                    qp.postReceive(new ReceiveWorkRequest(1).add(mine, 3072, 64));
                }
                id.connect(ConnectionParameters.defaults().withPrivateData(new Handshake(4, 1,
                        options.messageSize(), mine.remoteKey(), mine.address(), new byte[0]).encode()));
                server = Handshake.decode(id.await(Duration.ofSeconds(10), CmEventType.ESTABLISHED).privateData());
                assertNotNull(server, "the worker answered with its handshake");
                qp.postSend(new SendWorkRequest(1).opcode(SendOpcode.SEND));
                WorkCompletions ring = awaitCompletion();
                assertEquals(WcStatus.SUCCESS, ring.status(0));
                assertEquals(WcOpcode.RECV, ring.opcode(0), "the worker's first request is a ring");
            } catch (Exception | Error e) {
                close();
                throw e;
            }
        }

        /** Writes entry {@code number} into the worker's mailbox and rings, as a worker's endpoint does. */
        void ring(long number, long address, int rkey, int length, int flags) throws Exception {
            long at = 2048 + (number - 1) * Rendezvous.ENTRY;
            MemorySegment entry = mine.segment().asSlice(at, Rendezvous.ENTRY);
            entry.set(Rendezvous.LONG, 0, address);
            entry.set(Rendezvous.INT, 8, rkey);
            entry.set(Rendezvous.INT, 12, length);
            entry.set(Rendezvous.INT, 16, flags);
            entry.set(Rendezvous.INT, 20, 0);
            entry.set(Rendezvous.LONG, 24, number);
            long slot = (number - 1) % server.credits();
            qp.postSend(new SendWorkRequest(1).opcode(SendOpcode.RDMA_WRITE).add(mine, at, Rendezvous.ENTRY)
                    .rdma(server.wordAddress() + Worker.MAILBOX + slot * Rendezvous.ENTRY, server.wordKey())
                    .next(new SendWorkRequest(1).opcode(SendOpcode.SEND)));
        }

        /** The next completion, within 30 s. */
        WorkCompletions awaitCompletion() throws Exception {
            WorkCompletions wcs = new WorkCompletions(1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (cq.poll(wcs) == 0) {
                assertTrue(System.nanoTime() < deadline, "no completion came");
                Thread.onSpinWait();
            }
            return wcs;
        }

        @Override
        public void close() throws Exception {
            for (AutoCloseable c : new AutoCloseable[] {mine, qp, cq, pd, id, events}) {
                if (c != null) {
                    c.close();
                }
            }
        }
    }

    /**
     * A peer whose write reaches past its own endpoint's block of the worker's words, into the credit word of the
     * endpoint before it (which would let that endpoint send beyond its peer's credits): the write is refused, and
     * the other endpoint works on.
     */
    @Test
    void aPeerCannotWriteTheWordsOfAnotherEndpointOfItsWorker(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(4, 4);
        try (WorkerPair pair = new WorkerPair(ip, options, options, new FailureCatcher())) {
            Endpoint first = pair.connect((e, m) -> m.release());   // the server's endpoint number 0
            try (RawPeer raw = new RawPeer(pair, options)) {   // number 1
                long blockSize = Worker.MAILBOX + (long) options.credits() * Rendezvous.ENTRY;
                raw.mine.segment().set(ValueLayout.JAVA_LONG, 2048, Long.MAX_VALUE);
                raw.qp.postSend(new SendWorkRequest(1).opcode(SendOpcode.RDMA_WRITE).signaled(true)
                        .add(raw.mine, 2048, 8).rdma(raw.server.wordAddress() - blockSize, raw.server.wordKey()));
                assertEquals(WcStatus.REM_ACCESS_ERR, raw.awaitCompletion().status(0),
                        "a write into another endpoint's credit word was let through");
            }
            // The other endpoint's credits are as its own peer gave them: many times their worth goes through.
            try (Buffer b = pair.client.buffers().allocate(64)) {
                List<CompletableFuture<Long>> sends = new ArrayList<>();
                for (int i = 0; i < 4 * options.credits(); i++) {
                    sends.add(first.send(b.region(), b.offset(), 64));
                }
                for (CompletableFuture<Long> s : sends) {
                    assertEquals(64L, s.get(30, TimeUnit.SECONDS));
                }
            }
            assertTrue(first.isOpen());
        }
    }

    @Test
    void badInputIsRefusedBeforeAnythingIsPosted(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(4, 4).withMessageSize(1024);
        try (WorkerPair pair = new WorkerPair(ip, options, options, (e, m) -> m.release())) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            RemoteRegion remote = WorkerPair.remote(ep);
            ProtectionDomain otherPd = pair.client.protectionDomain().context().allocateProtectionDomain();
            try (Buffer b = pair.client.buffers().allocate(4096); otherPd;
                 MemoryRegion foreign = otherPd.allocate(4096)) {
                assertThrows(IllegalArgumentException.class, () -> ep.send(b.region(), b.offset(), -1));
                assertThrows(IllegalArgumentException.class, () -> ep.send(b.region(), b.region().length(), 8));
                assertThrows(IllegalArgumentException.class, () -> ep.send(b.region(), -8, 8));
                assertThrows(IllegalArgumentException.class, () -> ep.send(foreign, 0, 8));
                assertThrows(IllegalArgumentException.class, () -> ep.send(b.region(), b.offset(), 0),
                        "a message of no bytes without an immediate value");
                assertThrows(IllegalArgumentException.class, () -> ep.write(b.region(), b.offset(), 64, remote,
                        remote.length() - 32));
                assertThrows(IllegalArgumentException.class, () -> ep.read(b.region(), b.offset(), 64, remote, -1));
                assertThrows(IllegalArgumentException.class, () -> ep.fetchAndAdd(remote, 4, 1));
                assertThrows(IllegalArgumentException.class, () -> ep.compareAndSwap(remote, remote.length(), 0, 1));
                assertThrows(NullPointerException.class, () -> ep.write(b.region(), b.offset(), 8, null, 0));
                assertThrows(WrongThreadException.class, () -> ep.trySend(b.region(), b.offset(), 8, null, null));
                assertThrows(WrongThreadException.class, pair.client::progress);
                assertThrows(IllegalArgumentException.class, () -> pair.client.listen(
                        new InetSocketAddress(ip, 0), -1, r -> { }));
                ExecutionException notTheDevice = assertThrows(ExecutionException.class, () -> pair.client.listen(
                        new InetSocketAddress("127.0.0.1", 0), 1, r -> { }).get(30, TimeUnit.SECONDS));
                assertInstanceOf(IllegalArgumentException.class, notTheDevice.getCause());
                assertThrows(IllegalArgumentException.class, () -> pair.client.connect(pair.listener.localAddress(),
                        (e, m) -> m.release(), new byte[Endpoint.MAX_CONNECT_DATA + 1], Duration.ofSeconds(1)));
                assertThrows(IllegalArgumentException.class, () -> pair.client.connect(pair.listener.localAddress(),
                        (e, m) -> m.release(), null, Duration.ZERO));
                assertThrows(IllegalArgumentException.class, () -> pair.client.buffers().allocate(0));
                assertThrows(IllegalArgumentException.class, () -> WorkerOptions.defaults().withCredits(0, 4));
                IllegalArgumentException tooDeep = assertThrows(IllegalArgumentException.class, () -> Worker.open(ip,
                        WorkerOptions.defaults().withCredits(1, 65536).withDepths(4096, 8)),
                        "a completion queue smaller than every slot of the options would overflow under load");
                assertTrue(tooDeep.getMessage().contains("lower maxEndpoints"), tooDeep.getMessage());
                // The endpoint took none of it: it still works.
                assertEquals(8L, ep.send(b.region(), b.offset(), 8).get(30, TimeUnit.SECONDS));
                Buffer twice = pair.client.buffers().allocate(64);
                twice.close();
                assertThrows(IllegalStateException.class, twice::close);

                ep.close();
                ep.closeFuture().get(30, TimeUnit.SECONDS);
                assertThrows(IllegalStateException.class, () -> ep.send(b.region(), b.offset(), 8));
                assertThrows(IllegalStateException.class, () -> WorkerPair.on(pair.client,
                        () -> ep.trySend(b.region(), b.offset(), 8, null, null)));
            }
        }
    }

    @Test
    void aBufferHeldPastItsWorkersCloseKeepsItsMemoryButNotItsRegistration(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        Worker worker = Worker.start(ip, WorkerOptions.defaults(), "closing-worker");
        Buffer held = worker.buffers().allocate(4096);
        Buffer back = worker.buffers().allocate(4096);
        back.close();
        MemoryRegion region = held.region();
        held.segment().fill((byte) 7);
        worker.close();

        assertTrue(region.isClosed(), "the worker's close deregisters the chunk");
        assertEquals(0, worker.buffers().registeredBytes());
        assertThrows(IllegalStateException.class, () -> worker.buffers().allocate(64));
        // The memory is still there: reading and writing it neither throws nor touches freed memory.
        assertEquals(7, held.segment().get(ValueLayout.JAVA_BYTE, 4095));
        held.segment().fill((byte) 9);
        assertEquals(9, held.segment().get(ValueLayout.JAVA_BYTE, 0));
        held.close();
        // The last buffer of the chunk is back: now the memory is freed.
        assertThrows(IllegalStateException.class, () -> held.segment().get(ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalStateException.class, held::close);
    }

    @Test
    void aMessageHeldPastItsWorkersCloseKeepsItsBytesUntilItIsReleased(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        WorkerOptions options = WorkerOptions.defaults().withCredits(4, 4);
        CompletableFuture<ReceivedMessage> kept = new CompletableFuture<>();
        try (WorkerPair pair = new WorkerPair(ip, options, options, (e, m) -> {
            if (!kept.complete(m)) {
                m.release();
            }
        })) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            try (Buffer b = pair.client.buffers().allocate(64)) {
                b.segment().fill((byte) 42);
                assertEquals(64L, ep.send(b.region(), b.offset(), 64).get(30, TimeUnit.SECONDS));
            }
            kept.get(30, TimeUnit.SECONDS);
        }
        ReceivedMessage held = kept.get();
        MemorySegment bytes = held.segment();
        // Both workers are closed: the receive slab is deregistered, but the held message's bytes are still there.
        assertEquals(64, held.length());
        assertEquals(42, bytes.get(ValueLayout.JAVA_BYTE, 63));
        held.release();
        assertThrows(IllegalStateException.class, () -> bytes.get(ValueLayout.JAVA_BYTE, 0),
                "the last release frees the slab");
        assertThrows(IllegalStateException.class, held::release);
    }

    @Test
    void aReleasedMessageCannotBeReadOrReleasedAgain(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        CompletableFuture<ReceivedMessage> got = new CompletableFuture<>();
        WorkerOptions options = WorkerOptions.defaults().withCredits(4, 4);
        try (WorkerPair pair = new WorkerPair(ip, options, options, (e, m) -> got.complete(m))) {
            Endpoint ep = pair.connect((e, m) -> m.release());
            try (Buffer b = pair.client.buffers().allocate(64)) {
                b.segment().fill((byte) 9);
                ep.send(b.region(), b.offset(), 64).get(30, TimeUnit.SECONDS);
            }
            ReceivedMessage m = got.get(30, TimeUnit.SECONDS);
            assertEquals(64, m.length());
            assertEquals(9, m.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 63));
            m.release();
            assertThrows(IllegalStateException.class, m::segment);
            assertThrows(IllegalStateException.class, m::release);
        }
    }

    /**
     * A queue pair that leaves the connected state by itself (as the responder to a request of the peer's it refused:
     * no error completion on its side, only flushes) breaks its endpoint, instead of leaving it open with every
     * operation flushed.
     */
    @Test
    void aQueuePairInTheErrorStateUnaskedBreaksItsEndpoint(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        try (WorkerPair pair = new WorkerPair(ip, WorkerOptions.defaults(), WorkerOptions.defaults(),
                (e, m) -> m.release())) {
            FailureCatcher catcher = new FailureCatcher();
            Endpoint ep = pair.connect(catcher);
            WorkerPair.on(pair.client, () -> {
                ep.qp.toError();
                return null;
            });
            try (Buffer b = pair.client.buffers().allocate(64)) {
                Exception refused = assertThrows(Exception.class,
                        () -> ep.send(b.region(), b.offset(), 64).get(30, TimeUnit.SECONDS));
                if (refused instanceof ExecutionException flushed) {
                    // Flushed itself, or failed because an internal write (a keepalive) flushed first and broke it.
                    EndpointException e = (EndpointException) flushed.getCause();
                    WcStatus status = e.status() != null ? e.status() : ((EndpointException) e.getCause()).status();
                    assertEquals(WcStatus.WR_FLUSH_ERR, status, e.toString());
                } else {
                    // An internal write flushed and broke the endpoint before the send was called.
                    assertInstanceOf(IllegalStateException.class, refused);
                }
            }
            EndpointException broken = assertInstanceOf(EndpointException.class,
                    catcher.failure.get(30, TimeUnit.SECONDS));
            assertTrue(broken.getMessage().contains("entered the error state"), broken.getMessage());
            ep.closeFuture().get(30, TimeUnit.SECONDS);
            assertFalse(ep.isOpen());
        }
    }
}
