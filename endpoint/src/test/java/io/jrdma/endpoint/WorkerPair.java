package io.jrdma.endpoint;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.rdmacm.RemoteRegion;

import java.net.InetAddress;
import java.time.Duration;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Two workers on one device, each on its own thread, and a listener on the server's: what the device tests share.
 * The server's accepted endpoints advertise {@link #exposed}, a region the client may read, write and do atomics on,
 * in the accept's private data.
 */
final class WorkerPair implements AutoCloseable {
    static final int EXPOSED = 1 << 20;
    final Worker server;
    final Worker client;
    final MemoryRegion exposed;
    final EndpointListener listener;
    /** What the listener does with a request: by default accept it with the server handler. */
    volatile ConnectRequestHandler acceptor;

    WorkerPair(InetAddress ip, WorkerOptions serverOptions, WorkerOptions clientOptions,
               EndpointHandler serverHandler) throws Exception {
        server = Worker.start(ip, serverOptions, "server-worker");
        Worker c = null;
        try {
            c = Worker.start(ip, clientOptions, "client-worker");
            exposed = server.protectionDomain().allocate(EXPOSED, Access.LOCAL_WRITE, Access.REMOTE_READ,
                    Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
            acceptor = accepting(serverHandler);
            listener = server.listen(new InetSocketAddress(ip, 0), 256, r -> acceptor.onConnectRequest(r))
                    .get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (c != null) {
                c.close();
            }
            server.close();
            throw e;
        }
        client = c;
    }

    /** An acceptor that accepts every request with {@code handler} and advertises {@link #exposed}. */
    ConnectRequestHandler accepting(EndpointHandler handler) {
        return request -> request.accept(handler, advertise(exposed));
    }

    static byte[] advertise(MemoryRegion region) {
        return ByteBuffer.allocate(20).putLong(region.address()).putInt(region.remoteKey()).putLong(region.length())
                .array();
    }

    static RemoteRegion advertised(byte[] data) {
        ByteBuffer b = ByteBuffer.wrap(data);
        return new RemoteRegion(b.getLong(), b.getInt(), b.getLong());
    }

    Endpoint connect(EndpointHandler handler) throws Exception {
        return client.connect(listener.localAddress(), handler, null, Duration.ofSeconds(30))
                .get(60, TimeUnit.SECONDS);
    }

    /** The server region an endpoint's accept advertised. */
    static RemoteRegion remote(Endpoint ep) {
        return advertised(ep.peerPrivateData());
    }

    /** Runs {@code task} on {@code worker}'s thread and waits for its result. */
    static <T> T on(Worker worker, Callable<T> task) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        worker.execute(() -> {
            try {
                result.complete(task.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        try {
            return result.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    @Override
    public void close() throws io.jrdma.ibverbs.RdmaException {
        try {
            client.close();
        } finally {
            exposed.close();
            server.close();
        }
    }
}
