package io.jrdma.nativetest;

import io.jrdma.endpoint.Buffer;
import io.jrdma.endpoint.Endpoint;
import io.jrdma.endpoint.EndpointHandler;
import io.jrdma.endpoint.ReceivedMessage;
import io.jrdma.endpoint.Worker;
import io.jrdma.endpoint.WorkerOptions;
import org.junit.jupiter.api.Test;

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
 * Endpoints between two nodes: messages small and large (by rendezvous) over an impaired link (tc netem on both
 * nodes' eth0) arrive whole and in order, and their echoes come back the same way.
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

    @Test
    void messagesSmallAndLargeOverALossyLinkArriveWholeAndInOrder() throws Exception {
        ClusterNode peer = ClusterNode.peer();
        int count = 1500;
        long[] expected = new long[count];
        CRC32 all = new CRC32();
        long bytes = 0;
        List<byte[]> messages = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] m = new byte[length(i)];
            for (int j = 0; j < m.length; j++) {
                m[j] = (byte) (j * 7 + i + j / 251);
            }
            messages.add(m);
            expected[i] = crc(MemorySegment.ofArray(m));
            all.update(m);
            bytes += m.length;
        }
        Checker checker = new Checker(expected);
        try (ClusterNode.Remote echo = startEcho(peer, 7320);
             Worker worker = Worker.start(ClusterNode.localDataAddress(), OPTIONS, "client-worker")) {
            Endpoint ep = connect(worker, peer, 7320, checker);
            NetworkFaultsClusterTest.impair(peer, "loss 2% duplicate 2% reorder 10% 50% delay 2ms");
            try {
                List<CompletableFuture<Long>> sends = new ArrayList<>();
                for (byte[] m : messages) {
                    Buffer b = worker.buffers().allocate(m.length);
                    MemorySegment.copy(m, 0, b.segment(), ValueLayout.JAVA_BYTE, 0, m.length);
                    CompletableFuture<Long> sent = ep.send(b.region(), b.offset(), m.length);
                    sent.whenComplete((n, failure) -> b.close());
                    sends.add(sent);
                }
                for (CompletableFuture<Long> s : sends) {
                    s.get(300, TimeUnit.SECONDS);
                }
                checker.all.get(300, TimeUnit.SECONDS);
            } finally {
                NetworkFaultsClusterTest.repair(peer);
            }
            CompletableFuture<List<String>> errors = new CompletableFuture<>();
            worker.execute(() -> errors.complete(List.copyOf(checker.errors)));
            assertEquals(List.of(), errors.get(60, TimeUnit.SECONDS));
            ep.close();
            ep.closeFuture().get(120, TimeUnit.SECONDS);
            assertEquals(count + " messages, " + StreamResult.format(bytes, all.getValue()),
                    echo.succeeded(Duration.ofSeconds(120)).strip(), "what the far side received");
            System.out.printf(Locale.ROOT, "endpoints over netem: %d messages, %d bytes intact both ways%n", count,
                    bytes);
        }
    }

    /** An {@link EndpointEchoTask} on {@code node}'s data address. */
    static ClusterNode.Remote startEcho(ClusterNode node, int port) throws Exception {
        return node.call(EndpointEchoTask.class, node.dataAddress().getHostAddress(), Integer.toString(port),
                Long.toString(KEEPALIVE_MILLIS), Integer.toString(ACK_TIMEOUT), Integer.toString(RETRIES));
    }

    /** Connects to the echo on {@code node}, retrying while it is not yet listening. */
    static Endpoint connect(Worker worker, ClusterNode node, int port, EndpointHandler handler) throws Exception {
        InetSocketAddress server = new InetSocketAddress(node.dataAddress(), port);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return worker.connect(server, handler, null, Duration.ofSeconds(20)).get(60, TimeUnit.SECONDS);
            } catch (ExecutionException notYetListening) {
                if (System.nanoTime() > deadline) {
                    throw notYetListening;
                }
                Thread.sleep(500);
            }
        }
    }
}
