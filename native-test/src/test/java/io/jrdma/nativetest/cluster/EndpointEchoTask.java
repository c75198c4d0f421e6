package io.jrdma.nativetest.cluster;

import io.jrdma.endpoint.Buffer;
import io.jrdma.endpoint.Endpoint;
import io.jrdma.endpoint.EndpointHandler;
import io.jrdma.endpoint.EndpointListener;
import io.jrdma.endpoint.ReceivedMessage;
import io.jrdma.endpoint.Worker;
import io.jrdma.endpoint.WorkerOptions;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.rdmacm.RemoteRegion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * The far end of a cross-node endpoint test: a worker that accepts one endpoint on ADDRESS:PORT and sends every
 * message back as it came (copied into a pooled buffer, so large ones go back by rendezvous too), until the client
 * closes, and reports the messages, their bytes and their CRC-32 as it received them. Its accept advertises a region
 * of {@link #EXPOSED} bytes that the client may RDMA-read ({@link #exposed}), filled by {@link #pattern}.
 * Arguments: ADDRESS PORT KEEPALIVE_MILLIS ACK_TIMEOUT RETRY_COUNT.
 */
final class EndpointEchoTask implements NodeTask {
    static final int EXPOSED = 1 << 20;

    /** The byte at {@code offset} of the exposed region. */
    static byte pattern(long offset) {
        return (byte) (offset * 13 + offset / 1021);
    }

    /** The region the accept's private data advertises. */
    static RemoteRegion exposed(Endpoint ep) {
        ByteBuffer b = ByteBuffer.wrap(ep.peerPrivateData());
        return new RemoteRegion(b.getLong(), b.getInt(), b.getLong());
    }

    static WorkerOptions options(long keepaliveMillis, int ackTimeout, int retryCount) {
        return WorkerOptions.defaults().withCredits(16, 4)
                .withFailureDetection(Duration.ofMillis(keepaliveMillis), ackTimeout, retryCount);
    }

    /** Echoes on the worker's thread; the future flavour keeps the replies in order behind back-pressure. */
    private static final class Echo implements EndpointHandler {
        final CRC32 crc = new CRC32();
        long messages;
        long bytes;
        final CompletableFuture<Endpoint> first = new CompletableFuture<>();

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage m) {
            first.complete(endpoint);
            MemorySegment data = m.segment().asSlice(0, m.length());
            crc.update(data.asByteBuffer());
            messages++;
            bytes += m.length();
            try {
                Buffer reply = endpoint.worker().buffers().allocate(m.length());
                MemorySegment.copy(data, 0, reply.segment(), 0, m.length());
                m.release();
                endpoint.send(reply.region(), reply.offset(), (int) data.byteSize())
                        .whenComplete((n, failure) -> reply.close());
            } catch (Exception e) {
                endpoint.abort();
            }
        }
    }

    @Override
    public String run(List<String> args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(args.get(0)),
                Integer.parseInt(args.get(1)));
        WorkerOptions options = options(Long.parseLong(args.get(2)), Integer.parseInt(args.get(3)),
                Integer.parseInt(args.get(4)));
        Echo echo = new Echo();
        try (Worker worker = Worker.start(address.getAddress(), options, "echo-worker");
             MemoryRegion exposed = worker.protectionDomain().allocate(EXPOSED, Access.LOCAL_WRITE,
                     Access.REMOTE_READ)) {
            for (long i = 0; i < EXPOSED; i++) {
                exposed.segment().set(ValueLayout.JAVA_BYTE, i, pattern(i));
            }
            byte[] advert = ByteBuffer.allocate(20).putLong(exposed.address()).putInt(exposed.remoteKey())
                    .putLong(exposed.length()).array();
            EndpointListener listener = worker.listen(address, 4, r -> r.accept(echo, advert))
                    .get(60, TimeUnit.SECONDS);
            Endpoint ep = echo.first.get(EchoTask.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            ep.closeFuture().get(600, TimeUnit.SECONDS);
            listener.close();
            CompletableFuture<String> result = new CompletableFuture<>();
            worker.execute(() -> result.complete(echo.messages + " messages, "
                    + StreamResult.format(echo.bytes, echo.crc.getValue())));
            return result.get(60, TimeUnit.SECONDS);
        }
    }
}
