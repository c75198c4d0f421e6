package io.jrdma.examples;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;
import io.jrdma.rdmacm.RemoteRegion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One-sided RDMA: a server advertises a buffer (address, length, remote key); the client RDMA-writes a pattern into
 * it, then RDMA-reads it back into another buffer of its own and checks that both match. The server's CPU takes no
 * part in either transfer.
 *
 * <p>Argument: an IP address of an RDMA device (on Soft-RoCE, that of the network interface it runs on).
 */
public final class RdmaWriteRead {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int SIZE = 64 * 1024;

    private RdmaWriteRead() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress address = InetAddress.getByName(args[0]);
        try (RdmaListener listener = RdmaListener.bind(new InetSocketAddress(address, 0),
                ConnectionOptions.defaults())) {
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> lend(listener));
            try (RdmaConnection client = RdmaConnection.connect(listener.localAddress(), ConnectionOptions.defaults(),
                    TIMEOUT)) {
                RemoteRegion remote = client.awaitRemoteRegion(TIMEOUT);
                // What is written from, then what is read back into.
                MemoryRegion local = client.register(2L * SIZE, Access.LOCAL_WRITE);
                MemorySegment written = local.segment().asSlice(0, SIZE);
                MemorySegment readBack = local.segment().asSlice(SIZE, SIZE);
                for (int i = 0; i < SIZE; i++) {
                    written.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
                }
                long start = System.nanoTime();
                client.write(local, 0, remote, 0, SIZE);
                client.read(local, SIZE, remote, 0, SIZE);
                long nanos = System.nanoTime() - start;
                if (written.mismatch(readBack) >= 0) {
                    throw new IllegalStateException("byte " + written.mismatch(readBack) + " read back differs");
                }
                client.send(new byte[] {1});   // done: the server may go
                System.out.printf("%d bytes written into the server's memory and read back in %.1f us, identical%n",
                        SIZE, nanos / 1e3);
            }
            server.join();
        }
    }

    /** The server: accepts one client, advertises a buffer it may write and read, and waits until it is done. */
    private static void lend(RdmaListener listener) {
        try (RdmaConnection server = listener.accept(TIMEOUT)) {
            if (server == null) {
                throw new IllegalStateException("no client within " + TIMEOUT);
            }
            server.advertise(server.register(SIZE, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
            if (server.receive(TIMEOUT) == null) {
                throw new IllegalStateException("the client did not finish within " + TIMEOUT);
            }
        } catch (Exception e) {
            throw new IllegalStateException("server: " + e.getMessage(), e);
        }
    }
}
