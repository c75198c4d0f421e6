package io.jrdma.examples;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;
import io.jrdma.rdmacm.RemoteRegion;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Remote atomics on a counter in the server's memory: the client counts it up with fetch-and-add, then sets it with
 * compare-and-swap, once with the right expected value and once with a stale one, which leaves it unchanged. The
 * server then reads the counter in its own memory.
 *
 * <p>Argument: an IP address of an RDMA device (on Soft-RoCE, that of the network interface it runs on).
 */
public final class Atomics {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int ADDS = 100;
    private static final long SWAPPED = 4242;

    private Atomics() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress address = InetAddress.getByName(args[0]);
        try (RdmaListener listener = RdmaListener.bind(new InetSocketAddress(address, 0),
                ConnectionOptions.defaults())) {
            CompletableFuture<Long> counter = CompletableFuture.supplyAsync(() -> holdCounter(listener));
            try (RdmaConnection client = RdmaConnection.connect(listener.localAddress(), ConnectionOptions.defaults(),
                    TIMEOUT)) {
                RemoteRegion remote = client.awaitRemoteRegion(TIMEOUT);
                for (long i = 0; i < ADDS; i++) {
                    expect("fetch-and-add " + i, i, client.fetchAndAdd(remote, 0, 1));
                }
                expect("compare-and-swap", ADDS, client.compareAndSwap(remote, 0, ADDS, SWAPPED));
                // A stale expectation: the swap does not happen, and the value it found comes back.
                expect("stale compare-and-swap", SWAPPED, client.compareAndSwap(remote, 0, ADDS, 0));
                client.send(new byte[] {1});
            }
            expect("the server's counter", SWAPPED, counter.join());
            System.out.printf("%d fetch-and-adds and 2 compare-and-swaps on the server's counter, which now holds %d%n",
                    ADDS, SWAPPED);
        }
    }

    /** The server: accepts one client, advertises an 8-byte counter, and returns its value once the client is done. */
    private static long holdCounter(RdmaListener listener) {
        try (RdmaConnection server = listener.accept(TIMEOUT)) {
            if (server == null) {
                throw new IllegalStateException("no client within " + TIMEOUT);
            }
            MemoryRegion counter = server.register(Long.BYTES, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC);
            server.advertise(counter);
            if (server.receive(TIMEOUT) == null) {
                throw new IllegalStateException("the client did not finish within " + TIMEOUT);
            }
            // Atomics work on the 64-bit integer in the responder's byte order.
            return counter.segment().get(ValueLayout.JAVA_LONG, 0);
        } catch (Exception e) {
            throw new IllegalStateException("server: " + e.getMessage(), e);
        }
    }

    private static void expect(String what, long expected, long actual) {
        if (actual != expected) {
            throw new IllegalStateException(what + ": " + actual + ", not " + expected);
        }
    }
}
