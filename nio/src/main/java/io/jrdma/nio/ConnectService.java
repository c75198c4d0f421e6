package io.jrdma.nio;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
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
 * with one rsocket whose connect is under way, closed at once.
 *
 * <p>Those connects go to this host only: to the device address the first connect leaves from (or the first listen
 * binds to), at a port a bound, not listening, rsocket of this process holds, so that no other socket can listen
 * there and the connection manager refuses any request that gets that far. {@link #PROPERTY} switches it: {@code
 * auto} (the default) makes the room unless librdmacm's file name says rdma-core 53 or later, {@code on} always,
 * {@code off} never. Making it logs one line.
 */
final class ConnectService {
    /** The system property that switches the room on, off or to {@code auto}. */
    static final String PROPERTY = "jrdma.nio.connectServiceWorkaround";
    /** Starts of the service thread: room for four rsockets more each, so for 1027 at once afterwards. */
    static final int CYCLES = 256;
    /** The first rdma-core release whose service thread polls the array it has now. */
    static final int FIXED_IN = 53;
    /** rdma-core names librdmacm {@code librdmacm.so.1.3.RELEASE.0}; the mapping's path is the file's, not a link's. */
    private static final Pattern LIBRARY = Pattern.compile("/librdmacm\\.so\\.1\\.\\d+\\.(\\d+)\\.\\d+$");
    private static final System.Logger LOG = System.getLogger(ConnectService.class.getName());
    private static boolean prepared;

    /** When to make the room. */
    enum Mode {
        /** Unless librdmacm is known to be of rdma-core {@link #FIXED_IN} or later. */
        AUTO,
        /** Always, once per process. */
        ON,
        /** Never. */
        OFF;

        /**
         * The mode {@link #PROPERTY} names among {@code properties}, {@link #AUTO} if it is not set.
         *
         * @throws IllegalArgumentException if it names none
         */
        static Mode fromProperties(Properties properties) {
            String value = properties.getProperty(PROPERTY, "auto");
            try {
                return valueOf(value.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(PROPERTY + " must be auto, on or off, not \"" + value + '"', e);
            }
        }
    }

    /** Where the first RDMA connect or listen of the process makes the room, if it must: an address of this host. */
    interface LocalAddress {
        InetAddress get() throws IOException;
    }

    private ConnectService() {
    }

    /**
     * Makes the room, once per process, if {@code mode} asks for it, with connects to the address {@code local}
     * gives (an address an RDMA device of this host owns). Threads that come meanwhile wait for it.
     */
    static synchronized void prepare(Mode mode, LocalAddress local) throws IOException {
        if (prepared) {
            return;
        }
        prepared = true;
        int release = mode == Mode.AUTO ? release(mappedFiles()) : -1;
        if (mode == Mode.OFF || release >= FIXED_IN) {
            return;
        }
        InetAddress address = local.get();
        int family = SocketAddresses.family(address);
        Transport rdma = Transport.rdma();
        int holder = rdma.socket(family);
        try {
            rdma.bind(holder, new InetSocketAddress(address, 0));
            InetSocketAddress target = rdma.localAddress(holder);
            LOG.log(System.Logger.Level.INFO, "making room for 1027 rsockets in librdmacm's connection service"
                    + (release < 0 ? "" : " (rdma-core " + release + ", fixed in " + FIXED_IN + ")") + " with "
                    + CYCLES + " connects to " + target + ", a port of this process that nothing listens on; -D"
                    + PROPERTY + "=off skips it");
            for (int i = 0; i < CYCLES; i++) {
                try {
                    int fd = rdma.socket(family);
                    try {
                        rdma.connect(fd, target);
                    } finally {
                        rdma.close(fd);
                    }
                } catch (IOException e) {
                    // This cycle's connect failed at once, so the thread did not start: the next one may.
                }
            }
        } finally {
            rdma.close(holder);
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
