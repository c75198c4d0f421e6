package io.jrdma.nativetest.cluster;

import io.jrdma.endpoint.Buffer;
import io.jrdma.endpoint.Endpoint;
import io.jrdma.endpoint.EndpointHandler;
import io.jrdma.endpoint.ReceivedMessage;
import io.jrdma.endpoint.Worker;
import io.jrdma.endpoint.WorkerOptions;
import io.jrdma.rdmacm.RemoteRegion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Endpoints between two nodes: messages small and large (by rendezvous) arrive whole and in order and their echoes
 * come back the same way, also over an impaired link (tc netem on both nodes' eth0), where retransmissions are common
 * (Soft-RoCE executes again what follows a retransmitted request: see the architecture page on binds), and RDMA reads
 * over that link.
 */
@ClusterTest
class EndpointsAcrossNodesClusterTest {
    /** Keepalive 300 ms, ACK timeout 134 ms, 6 retries: a dead peer is found within about 1.3 s of idleness. */
    static final long KEEPALIVE_MILLIS = 300;
    static final int ACK_TIMEOUT = 15;
    static final int RETRIES = 6;
    static final WorkerOptions OPTIONS = EndpointEchoTask.options(KEEPALIVE_MILLIS, ACK_TIMEOUT, RETRIES);

    /** Checks each echo against the CRC of the message it answers, in order. */
    static final class Checker implements EndpointHandler {
        final long[] expected;
        int received;
        final List<String> errors = new ArrayList<>();
        final CompletableFuture<Void> all = new CompletableFuture<>();
        final CompletableFuture<Throwable> broken = new CompletableFuture<>();

        Checker(long[] expected) {
            this.expected = expected;
        }

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage m) {
            long crc = crc(m.segment().asSlice(0, m.length()));
            if (received >= expected.length || crc != expected[received]) {
                errors.add("echo " + received + " of " + m.length() + " bytes has CRC " + Long.toHexString(crc));
            }
            m.release();
            if (++received == expected.length) {
                all.complete(null);
            }
        }

        @Override
        public void onError(Endpoint endpoint, Throwable failure) {
            broken.complete(failure);
        }
    }

    static long crc(MemorySegment s) {
        CRC32 crc = new CRC32();
        crc.update(s.asByteBuffer());
        return crc.getValue();
    }

    /** Message {@code i}'s length: mostly up to the 4 KiB receive buffers, every tenth larger (rendezvous). */
    static int length(int i) {
        return i % 10 == 0 ? 6000 + i * 37 % 14000 : 1 + i * 131 % 4096;
    }

    static final String NETEM = "loss 2% duplicate 2% reorder 10% 50% delay 2ms";

    @ParameterizedTest(name = "netem {0}, large messages {1}")
    @CsvSource(delimiter = '|', value = {"none|true", NETEM + "|false", NETEM + "|true"})
    void messagesSmallAndLargeOverALossyLinkArriveWholeAndInOrder(String netem, boolean large) throws Exception {
        ClusterNode peer = ClusterNode.peer();
        int port = 7320 + Math.abs((netem + large).hashCode() % 50);
        int count = 600;
        long[] expected = new long[count];
        CRC32 all = new CRC32();
        long bytes = 0;
        List<byte[]> messages = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] m = new byte[large ? length(i) : 1 + i * 131 % 4096];
            for (int j = 0; j < m.length; j++) {
                m[j] = (byte) (j * 7 + i + j / 251);
            }
            messages.add(m);
            expected[i] = crc(MemorySegment.ofArray(m));
            all.update(m);
            bytes += m.length;
        }
        Checker checker = new Checker(expected);
        try (ClusterNode.Remote echo = startEcho(peer, port);
             Worker worker = Worker.start(ClusterNode.localDataAddress(), OPTIONS, "client-worker")) {
            Endpoint ep = connect(worker, echo, peer, port, checker);
            if (!netem.equals("none")) {
                NetworkFaultsClusterTest.impair(peer, netem);
            }
            long start = System.nanoTime();
            try {
                List<CompletableFuture<Long>> sends = new ArrayList<>();
                for (byte[] m : messages) {
                    Buffer b = worker.buffers().allocate(m.length);
                    MemorySegment.copy(m, 0, b.segment(), ValueLayout.JAVA_BYTE, 0, m.length);
                    CompletableFuture<Long> sent = ep.send(b.region(), b.offset(), m.length);
                    sent.whenComplete((n, failure) -> b.close());
                    sends.add(sent);
                }
                CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
                checker.all.get(300, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                CompletableFuture<String> state = new CompletableFuture<>();
                worker.execute(() -> state.complete(checker.received + " echoes, " + ep.backlogSize()
                        + " sends not posted"));
                throw new AssertionError("stalled: " + state.get(60, TimeUnit.SECONDS), e);
            } finally {
                if (!netem.equals("none")) {
                    NetworkFaultsClusterTest.repair(peer);
                }
            }
            CompletableFuture<List<String>> errors = new CompletableFuture<>();
            worker.execute(() -> errors.complete(List.copyOf(checker.errors)));
            assertEquals(List.of(), errors.get(60, TimeUnit.SECONDS));
            ep.close();
            ep.closeFuture().get(120, TimeUnit.SECONDS);
            assertEquals(count + " messages, " + StreamResult.format(bytes, all.getValue()),
                    echo.succeeded(Duration.ofSeconds(120)).strip(), "what the far side received");
            System.out.printf(Locale.ROOT, "endpoints, netem %s: %d messages, %d bytes intact both ways in %.1f s%n",
                    netem, count, bytes, (System.nanoTime() - start) / 1e9);
        }
    }

    /** 200 RDMA reads of 20 KB from the peer's exposed region, over the impaired link, each checked. */
    @Test
    void readsOverALossyLinkCompleteAndAreChecked() throws Exception {
        ClusterNode peer = ClusterNode.peer();
        try (ClusterNode.Remote echo = startEcho(peer, 7380);
             Worker worker = Worker.start(ClusterNode.localDataAddress(), OPTIONS, "client-worker")) {
            byte[] one = {7};
            Checker checker = new Checker(new long[] {crc(MemorySegment.ofArray(one))});
            Endpoint ep = connect(worker, echo, peer, 7380, checker);
            RemoteRegion remote = EndpointEchoTask.exposed(ep);
            // The echo takes its endpoint from the first message.
            try (Buffer b = worker.buffers().allocate(1)) {
                b.segment().set(ValueLayout.JAVA_BYTE, 0, one[0]);
                ep.send(b.region(), b.offset(), 1).get(60, TimeUnit.SECONDS);
            }
            checker.all.get(60, TimeUnit.SECONDS);
            int size = 20_000;
            int count = 200;
            Buffer target = worker.buffers().allocate(size * 8);
            NetworkFaultsClusterTest.impair(peer, NETEM);
            long start = System.nanoTime();
            try {
                for (int i = 0; i < count; i += 8) {
                    List<CompletableFuture<Long>> reads = new ArrayList<>();
                    for (int j = 0; j < 8; j++) {
                        long from = (long) (i + j) * 4099 % (EndpointEchoTask.EXPOSED - size);
                        reads.add(ep.read(target.region(), target.offset() + (long) j * size, size, remote, from));
                    }
                    CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
                    for (int j = 0; j < 8; j++) {
                        long from = (long) (i + j) * 4099 % (EndpointEchoTask.EXPOSED - size);
                        for (int k = 0; k < size; k++) {
                            if (target.segment().get(ValueLayout.JAVA_BYTE, (long) j * size + k)
                                    != EndpointEchoTask.pattern(from + k)) {
                                throw new AssertionError("read " + (i + j) + " differs at byte " + k);
                            }
                        }
                    }
                }
            } finally {
                NetworkFaultsClusterTest.repair(peer);
            }
            System.out.printf(Locale.ROOT, "endpoints, netem %s: %d reads of %d bytes checked in %.1f s%n", NETEM,
                    count, size, (System.nanoTime() - start) / 1e9);
            target.close();
            ep.close();
            ep.closeFuture().get(120, TimeUnit.SECONDS);
            echo.succeeded(Duration.ofSeconds(120));
        }
    }

    /** An {@link EndpointEchoTask} on {@code node}'s data address. */
    static ClusterNode.Remote startEcho(ClusterNode node, int port) throws Exception {
        return node.call(EndpointEchoTask.class, node.dataAddress().getHostAddress(), Integer.toString(port),
                Long.toString(KEEPALIVE_MILLIS), Integer.toString(ACK_TIMEOUT), Integer.toString(RETRIES));
    }

    /** Connects to {@code echo} (started by {@link #startEcho}) on {@code node}, once it listens. */
    static Endpoint connect(Worker worker, ClusterNode.Remote echo, ClusterNode node, int port,
            EndpointHandler handler) throws Exception {
        InetSocketAddress server = new InetSocketAddress(node.dataAddress(), port);
        return echo.whenListening(Duration.ofSeconds(120),
                () -> worker.connect(server, handler, null, Duration.ofSeconds(20)).get(60, TimeUnit.SECONDS));
    }
}
