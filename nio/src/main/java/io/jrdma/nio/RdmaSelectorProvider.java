package io.jrdma.nio;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;

/**
 * A {@link SelectorProvider} whose socket channels run over librdmacm's rsockets (a byte stream over an RDMA
 * reliable connection) for the addresses its rules name, and over TCP for every other address; one selector of
 * it multiplexes both kinds. Switch it on for a whole JVM, without changing the application, with
 * {@code -Djava.nio.channels.spi.SelectorProvider=io.jrdma.nio.RdmaSelectorProvider}, or use an instance directly:
 *
 * {@snippet class=io.jrdma.nio.snippets.ProviderSnippets region=direct}
 *
 * <h2>Rules</h2>
 * The rules come from the system property {@code jrdma.nio.rules} (the rules themselves, separated by newlines or
 * {@code ;}) or {@code jrdma.nio.rules.file} (a file of them, one a line), in the spirit of the JDK's old
 * {@code sdp.conf}:
 * <pre>
 * # ACTION OPERATION ADDRESS[/PREFIX] PORTS
 * rdma bind    10.0.2.15   *
 * rdma connect 10.0.2.0/24 5000-6000
 * tcp  connect 10.0.2.99   *
 * </pre>
 * <ul>
 *   <li>ACTION: {@code rdma} (an rsocket) or {@code tcp} (a kernel TCP socket, to carve an exception out of a
 *       later rule).</li>
 *   <li>OPERATION: {@code bind} matches the local address a server socket channel, or a socket channel before it
 *       connects, binds to; {@code connect} matches the remote address of a socket channel that was not bound
 *       before.</li>
 *   <li>ADDRESS: an IPv4 or IPv6 literal (no host names: a rule never waits for a name service), with an optional
 *       prefix length, or {@code *} for any address. A bind to the wildcard address matches only {@code *}.</li>
 *   <li>PORTS: a port, a range {@code LOW-HIGH} or {@code LOW-*}, or {@code *}.</li>
 * </ul>
 * The first rule that matches decides; no match means TCP. {@code #} starts a comment. A socket's kind is decided
 * by its first bind or connect and kept: an accepted channel has its server channel's kind.
 *
 * <p>Before an {@code rdma} rule's rsocket is made, the connection manager is asked whether an RDMA device owns
 * the address (bind) or routes to it (connect; this resolves the address and the route, which takes up to two
 * seconds each when it fails). If none does, the bind or connect fails with a {@link java.net.BindException} or
 * {@link java.net.ConnectException} naming the rule, unless {@code -Djrdma.nio.fallback=tcp} is set, in which case
 * it goes over TCP. Each answer is kept for 30 seconds per address and operation, so a device or route that
 * appears or goes is noticed within that time, and only the first bind or connect in it waits for the check.
 *
 * <h2 id="memory">Memory</h2>
 * Each connected RDMA channel registers a send buffer and a receive buffer with the device, which pins them, plus
 * one page: librdmacm's default is 128 KiB each, some 260 KiB a channel. The system property
 * {@code jrdma.nio.bufferSize} (bytes, or with a suffix {@code k} or {@code m}: a multiple of 4 KiB from 4 KiB to
 * 1 GiB; a bad value fails the provider's construction) sets both for every rsocket the provider makes, so a
 * channel pins {@code 2 × bufferSize} and a page; accepted channels take their server channel's sizes.
 * {@code SO_SNDBUF} and {@code SO_RCVBUF} set on a channel before it connects (or {@code SO_RCVBUF} on a server
 * channel before it binds) override it for that socket; set later, they are kept but change nothing, since the
 * buffers are registered already. Smaller buffers pin less and move less per round trip.
 *
 * <p>librdmacm before rdma-core 53 hands connecting and accepted rsockets to a service thread that goes on
 * polling an array it has freed once a fourth one comes ("rsockets: Fix for cm_svc_run thread"), which corrupts
 * the heap or hangs every later connect. Before its first RDMA connect or listen the provider makes that array
 * large enough for 1027 rsockets at once (256 throwaway connects, once per process); it cannot help a process that
 * made rsockets before. The throwaway connects never leave this host: they go to the local device address (the one
 * the first connect leaves from, or the first listen's), at a port that a bound rsocket of the provider holds and
 * nothing listens on, and it logs one line when it makes them. rdma-core 53 or later is the fix, and with it (known
 * by librdmacm's file name) the provider makes no throwaway connects. The system property
 * {@code jrdma.nio.connectServiceWorkaround} switches this: {@code auto} (the default, as just said), {@code on}
 * (whatever librdmacm's release) or {@code off} (never; for a process that never has more than three rsockets
 * connecting or accepted at once, or one with a fixed librdmacm of another name).
 *
 * <h2>What the channels do</h2>
 * Socket and server socket channels for {@link StandardProtocolFamily#INET} and {@link StandardProtocolFamily#INET6}:
 * blocking and non-blocking modes, connect and finish-connect, scatter/gather reads and writes, shutdown of either
 * direction, the options {@code TCP_NODELAY}, {@code SO_RCVBUF}, {@code SO_SNDBUF}, {@code SO_KEEPALIVE} and
 * {@code SO_REUSEADDR}, selection of every kind of operation, {@link java.nio.channels.Selector#wakeup() wakeup}, and
 * closing a channel while another thread selects on it or blocks in it. The {@code socket()} adapters show a
 * channel's addresses, state and options and stream in blocking mode; they refuse connect timeouts,
 * {@code SO_LINGER}, {@code IP_TOS} and urgent data, and keep {@code SO_TIMEOUT} without applying it. Datagram
 * channels and pipes are not supported (they throw {@link UnsupportedOperationException}).
 *
 * <p>A process whose channels are all TCP needs no rdma-core: librdmacm is loaded at the first RDMA bind or connect,
 * and {@link #isAvailable()} and {@link #unavailabilityCause()} tell whether RDMA can be used here and why not.
 *
 * <p>A channel in blocking mode waits without blocking its socket (see docs/nio.md, "Waiting"): it polls without waiting and
 * sleeps between polls, so that it notices a close or an interrupt at once and a virtual thread never holds its
 * carrier in native code.
 */
public final class RdmaSelectorProvider extends SelectorProvider {
    private final Router router;

    /**
     * A provider with the rules of the system properties {@code jrdma.nio.rules} or {@code jrdma.nio.rules.file},
     * {@code jrdma.nio.fallback}, {@code jrdma.nio.bufferSize} and {@code jrdma.nio.connectServiceWorkaround}; the JDK
     * calls it for {@code -Djava.nio.channels.spi.SelectorProvider}.
     *
     * @throws IllegalArgumentException if the rules do not parse (the message names the line), the buffer size is
     *                                  not one (see <a href="#memory">Memory</a>), or the workaround is not
     *                                  {@code auto}, {@code on} or {@code off}
     */
    public RdmaSelectorProvider() {
        this(Rules.fromProperties(System.getProperties()), BufferSize.fromProperties(System.getProperties()));
    }

    private RdmaSelectorProvider(Rules rules, int bufferSize) {
        this(new Router(rules, bufferSize, ConnectService.Mode.fromProperties(System.getProperties())));
    }

    private RdmaSelectorProvider(Router router) {
        this.router = router;
    }

    /**
     * A provider with the given rules and librdmacm's buffer sizes, whatever the system properties say (but
     * {@code jrdma.nio.connectServiceWorkaround}, which is the process's).
     *
     * @param rules         the rules, one a line, as {@code jrdma.nio.rules} takes them
     * @param fallbackToTcp whether an {@code rdma} rule whose address no RDMA device serves gives TCP rather than an
     *                      error
     * @return the provider
     * @throws IllegalArgumentException if the rules do not parse (the message names the line) or the workaround is
     *                                  not {@code auto}, {@code on} or {@code off}
     */
    public static RdmaSelectorProvider withRules(String rules, boolean fallbackToTcp) {
        Objects.requireNonNull(rules, "rules");
        return new RdmaSelectorProvider(Rules.parse(rules.replace(';', '\n'), "rules", fallbackToTcp),
                BufferSize.DEFAULT);
    }

    /**
     * A provider with this one's rules whose rsockets each get a send buffer and a receive buffer of {@code bytes}
     * (see <a href="#memory">Memory</a>), as {@code jrdma.nio.bufferSize} gives them.
     *
     * @param bytes the size of each buffer: a multiple of 4 KiB from 4 KiB to 1 GiB
     * @return the provider
     * @throws IllegalArgumentException if {@code bytes} is not such a size
     */
    public RdmaSelectorProvider withBufferSize(int bytes) {
        return new RdmaSelectorProvider(new Router(router.rules(), BufferSize.check(bytes, "buffer size " + bytes),
                router.connectService()));
    }

    /**
     * Whether channels can run over RDMA here: librdmacm loads and the verbs library lists a device. The provider
     * works without: its TCP channels never load librdmacm, and an {@code rdma} rule then fails (or falls back to TCP)
     * as where no device serves the address. Asked again at each call.
     *
     * @return whether {@link #unavailabilityCause()} is null
     */
    public static boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /**
     * Why channels cannot run over RDMA here, or null if they can: an {@link UnsatisfiedLinkError} naming
     * {@code librdmacm.so.1} when it cannot be loaded (rdma-core not installed), an {@link IllegalStateException} when
     * no RDMA device is listed, or the {@link io.jrdma.ibverbs.RdmaException} of listing them.
     *
     * @return the cause, or null
     */
    public static Throwable unavailabilityCause() {
        return RdmaLibrary.unavailabilityCause();
    }

    /** Throws: no datagram channels yet. */
    @Override
    public DatagramChannel openDatagramChannel() {
        throw new UnsupportedOperationException("jrdma-nio has no datagram channels");
    }

    /** Throws: no datagram channels yet. */
    @Override
    public DatagramChannel openDatagramChannel(ProtocolFamily family) {
        throw new UnsupportedOperationException("jrdma-nio has no datagram channels");
    }

    /** Throws: no pipes yet. */
    @Override
    public Pipe openPipe() {
        throw new UnsupportedOperationException("jrdma-nio has no pipes");
    }

    /** A selector that takes this provider's channels, RDMA and TCP alike. */
    @Override
    public AbstractSelector openSelector() throws IOException {
        return new PollSelector(this);
    }

    /** An unbound server socket channel for IPv4 (or IPv6, if it binds to an IPv6 address). */
    @Override
    public ServerSocketChannel openServerSocketChannel() throws IOException {
        return new ServerSocketChannelImpl(this, router, Libc.AF_INET);
    }

    /**
     * An unbound server socket channel of {@code family}.
     *
     * @throws UnsupportedOperationException for a family other than INET and INET6
     */
    @Override
    public ServerSocketChannel openServerSocketChannel(ProtocolFamily family) throws IOException {
        return new ServerSocketChannelImpl(this, router, family(family));
    }

    /** An unconnected socket channel for IPv4 (or IPv6, if it binds or connects to an IPv6 address). */
    @Override
    public SocketChannel openSocketChannel() throws IOException {
        return new SocketChannelImpl(this, router, Libc.AF_INET);
    }

    /**
     * An unconnected socket channel of {@code family}.
     *
     * @throws UnsupportedOperationException for a family other than INET and INET6
     */
    @Override
    public SocketChannel openSocketChannel(ProtocolFamily family) throws IOException {
        return new SocketChannelImpl(this, router, family(family));
    }

    private static int family(ProtocolFamily family) {
        Objects.requireNonNull(family, "family");
        if (family == StandardProtocolFamily.INET) {
            return Libc.AF_INET;
        }
        if (family == StandardProtocolFamily.INET6) {
            return Libc.AF_INET6;
        }
        throw new UnsupportedOperationException("protocol family " + family + " not supported");
    }

    @Override
    public String toString() {
        return "RdmaSelectorProvider" + router.rules().rules()
                + (router.bufferSize() == BufferSize.DEFAULT ? "" : " bufferSize=" + router.bufferSize());
    }
}
