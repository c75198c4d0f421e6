package io.jrdma.nio;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 * with one rsocket whose connect is under way, closed at once. A librdmacm of rdma-core 53 or later, known by its file
 * name, needs none of it.
 */
final class ConnectService {
    /** Starts of the service thread: room for four rsockets more each, so for 1027 at once afterwards. */
    static final int CYCLES = 256;
    /** A port nothing on the device's address should serve (discard): a connect that got that far is refused. */
    private static final int PORT = 9;
    /** The first rdma-core release whose service thread polls the array it has now. */
    static final int FIXED_IN = 53;
    /** rdma-core names librdmacm {@code librdmacm.so.1.3.RELEASE.0}; the mapping's path is the file's, not a link's. */
    private static final Pattern LIBRARY = Pattern.compile("/librdmacm\\.so\\.1\\.\\d+\\.(\\d+)\\.\\d+$");
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
        if (release(mappedFiles()) >= FIXED_IN) {
            return;
        }
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

    /**
     * The rdma-core release of the librdmacm among {@code maps} (lines of {@code /proc/self/maps}), or -1 if none is
     * named as rdma-core names it (a build of its own, say): then the room is made, which costs time but no harm.
     */
    static int release(List<String> maps) {
        for (String line : maps) {
            Matcher m = LIBRARY.matcher(line);
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
        }
        return -1;
    }

    private static List<String> mappedFiles() {
        try {
            return Files.readAllLines(Path.of("/proc/self/maps"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/self/maps", e);
        }
    }
}
