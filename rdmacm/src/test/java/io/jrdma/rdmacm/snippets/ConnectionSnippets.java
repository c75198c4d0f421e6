package io.jrdma.rdmacm.snippets;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.rdmacm.ConnectionClosedException;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;
import io.jrdma.rdmacm.RemoteRegion;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** The socket-like API: listeners and connections. */
final class ConnectionSnippets {
    private volatile boolean running = true;

    void listener() throws RdmaException, InterruptedException {
        // @start region="listener"
        try (RdmaListener listener = RdmaListener.bind(new InetSocketAddress("10.0.0.2", 7471),
                ConnectionOptions.defaults())) {
            while (running) {
                RdmaConnection c = listener.accept(Duration.ofSeconds(1));   // null when nobody came
                if (c != null) {
                    Thread.startVirtualThread(() -> serve(c));
                }
            }
        }
        // @end
    }

    void connection() throws RdmaException, InterruptedException {
        // @start region="connection"
        try (RdmaConnection c = RdmaConnection.connect(new InetSocketAddress("10.0.0.2", 7471),
                ConnectionOptions.defaults(), Duration.ofSeconds(5))) {
            c.send("hello".getBytes(StandardCharsets.UTF_8));
            MemoryRegion local = c.register(1 << 20, Access.LOCAL_WRITE);
            RemoteRegion peer = c.awaitRemoteRegion(Duration.ofSeconds(5));   // the server advertise()d it
            c.read(local, 0, peer, 0, 1 << 20);
        }
        // @end
    }

    void serve(RdmaConnection c) {
        // @start region="serve"
        try (c) {
            MemoryRegion shared = c.register(1 << 20, Access.LOCAL_WRITE, Access.REMOTE_READ);
            c.advertise(shared);
            byte[] hello = c.receive(Duration.ofSeconds(5));
            // ... the client reads the region ...
        } catch (RdmaException | InterruptedException e) {
            System.err.println("client failed: " + e);
        }
        // @end
    }

    void options(byte[] token) {
        // @start region="options"
        ConnectionOptions opts = ConnectionOptions.defaults().withMaxMessageSize(64 * 1024).withPrivateData(token);
        // @end
    }

    void remoteRegion(RdmaConnection connection, MemoryRegion local) throws RdmaException, InterruptedException {
        // @start region="remote-region"
        RemoteRegion peer = connection.awaitRemoteRegion(Duration.ofSeconds(5));
        connection.write(local, 0, peer, 0, 4096);
        // @end
    }

    void closed(RdmaConnection connection, Duration timeout) throws RdmaException, InterruptedException {
        // @start region="closed"
        try {
            byte[] m = connection.receive(timeout);
        } catch (ConnectionClosedException e) {
            reconnect();
        }
        // @end
    }

    private static void reconnect() {
    }
}
