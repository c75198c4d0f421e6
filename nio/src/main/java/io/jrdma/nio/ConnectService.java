package io.jrdma.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Room in librdmacm's connection service, made before the process's first RDMA connection. librdmacm hands every
 * rsocket whose connect is under way ({@code rconnect}), and every accepted one ({@code raccept}), to a service
 * thread ({@code cm_svc_run}) that polls their event channels, and talks to it over a socket pair while holding a
 * global lock ({@code rs_notify_svc}). Before rdma-core 53 ("rsockets: Fix for cm_svc_run thread") that thread
 * keeps polling the array it started with (room for three rsockets) after adding a fourth replaced it by a bigger
 * one and freed it: it no longer sees the rsockets added later, and, as the freed memory is reused, not even its
 * socket pair; the next {@code rconnect}, {@code raccept} or {@code rclose} waits for it forever under the lock, and
 * every other one of the process waits for the lock. The array grows only while the thread runs; but it keeps its
 * size when the thread ends (when it serves no rsocket any more), and each new thread grows it by four before it
 * starts polling. So, while no rsocket is served, this starts and ends the thread {@link #CYCLES} times, each time
 * with one rsocket whose connect is under way, closed at once.
 */
final class ConnectService {
    /** Starts of the service thread: room for four rsockets more each, so for 1027 at once afterwards. */
    static final int CYCLES = 256;
    /** A port nothing on the device's address should serve (discard): a connect that got that far is refused. */
    private static final int PORT = 9;
    private static boolean prepared;

    private ConnectService() {
    }

    /**
     * Makes the room, once per process, with connects to {@code address} (an address an RDMA device owns or routes
     * to; the first RDMA connect's remote or listen's local one). Threads that come meanwhile wait for it.
     */
    static synchronized void prepare(InetAddress address) {
        if (prepared) {
            return;
        }
        prepared = true;
        InetSocketAddress target = new InetSocketAddress(address, PORT);
        int family = SocketAddresses.family(address);
        for (int i = 0; i < CYCLES; i++) {
            try {
                int fd = Transport.RDMA.socket(family);
                try {
                    Transport.RDMA.connect(fd, target);
                } finally {
                    Transport.RDMA.close(fd);
                }
            } catch (IOException e) {
                // This cycle's connect failed at once, so the thread did not start: the next one may.
            }
        }
    }
}
