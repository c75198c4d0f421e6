package io.jrdma.rdmacm;

import io.jrdma.bindings.ibverbs.ibv_ece;
import io.jrdma.bindings.ibverbs.ibv_qp_attr;
import io.jrdma.bindings.rdmacm.ibv_path_data;
import io.jrdma.bindings.rdmacm.ibv_sa_path_rec;
import io.jrdma.bindings.rdmacm.rdma_addr;
import io.jrdma.bindings.rdmacm.rdma_cm_id;
import io.jrdma.bindings.rdmacm.rdma_cma_h;
import io.jrdma.bindings.rdmacm.rdma_route;
import io.jrdma.ibverbs.AsyncEventType;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Ece;
import io.jrdma.ibverbs.QpAttributes;
import io.jrdma.ibverbs.QpState;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.VerbsBridge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.ref.WeakReference;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A connection-manager id ({@code struct rdma_cm_id}): the RDMA counterpart of a socket. It binds, resolves, listens,
 * connects and accepts by IP address and port; its queue pair is moved through its states by the connection manager.
 * Operations start asynchronously and finish with an event on the id's {@link EventChannel}; {@link #await} waits for
 * it (poll(2) with a timeout, interruptible).
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=active}
 *
 * <p>On the passive side, a listening id's connect requests bring new ids:
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=cm-event}
 *
 * <p>A queue pair the application built itself, with {@link io.jrdma.ibverbs.ProtectionDomain#queuePair}, is
 * brought up with the attributes the id gives ({@link #queuePairAttributes}) and named by its number in the
 * {@link ConnectionParameters}; the active side then completes the connection with {@link #establish()}:
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=own-queue-pair}
 */
@SuppressWarnings("restricted")
public final class CmId implements AutoCloseable {
    private static final MethodHandle CREATE_ID = Cm.capturing(rdma_cma_h.rdma_create_id$address(),
            rdma_cma_h.rdma_create_id$descriptor());
    private static final MethodHandle CREATE_EP = Cm.capturing(rdma_cma_h.rdma_create_ep$address(),
            rdma_cma_h.rdma_create_ep$descriptor());
    private static final MethodHandle DESTROY_ID = Cm.capturing(rdma_cma_h.rdma_destroy_id$address(),
            rdma_cma_h.rdma_destroy_id$descriptor());
    private static final MethodHandle BIND = Cm.capturing(rdma_cma_h.rdma_bind_addr$address(),
            rdma_cma_h.rdma_bind_addr$descriptor());
    private static final MethodHandle RESOLVE_ADDR = Cm.capturing(rdma_cma_h.rdma_resolve_addr$address(),
            rdma_cma_h.rdma_resolve_addr$descriptor());
    private static final MethodHandle RESOLVE_ROUTE = Cm.capturing(rdma_cma_h.rdma_resolve_route$address(),
            rdma_cma_h.rdma_resolve_route$descriptor());
    private static final MethodHandle LISTEN = Cm.capturing(rdma_cma_h.rdma_listen$address(),
            rdma_cma_h.rdma_listen$descriptor());
    private static final MethodHandle CONNECT = Cm.capturing(rdma_cma_h.rdma_connect$address(),
            rdma_cma_h.rdma_connect$descriptor());
    private static final MethodHandle ACCEPT = Cm.capturing(rdma_cma_h.rdma_accept$address(),
            rdma_cma_h.rdma_accept$descriptor());
    private static final MethodHandle REJECT = Cm.capturing(rdma_cma_h.rdma_reject$address(),
            rdma_cma_h.rdma_reject$descriptor());
    private static final MethodHandle DISCONNECT = Cm.capturing(rdma_cma_h.rdma_disconnect$address(),
            rdma_cma_h.rdma_disconnect$descriptor());
    private static final MethodHandle NOTIFY = Cm.capturing(rdma_cma_h.rdma_notify$address(),
            rdma_cma_h.rdma_notify$descriptor());
    private static final MethodHandle MIGRATE = Cm.capturing(rdma_cma_h.rdma_migrate_id$address(),
            rdma_cma_h.rdma_migrate_id$descriptor());
    private static final MethodHandle JOIN = Cm.capturing(rdma_cma_h.rdma_join_multicast$address(),
            rdma_cma_h.rdma_join_multicast$descriptor());
    private static final MethodHandle LEAVE = Cm.capturing(rdma_cma_h.rdma_leave_multicast$address(),
            rdma_cma_h.rdma_leave_multicast$descriptor());
    private static final MethodHandle CREATE_QP = Cm.capturing(rdma_cma_h.rdma_create_qp$address(),
            rdma_cma_h.rdma_create_qp$descriptor());
    private static final MethodHandle CREATE_QP_EX = Cm.capturing(rdma_cma_h.rdma_create_qp_ex$address(),
            rdma_cma_h.rdma_create_qp_ex$descriptor());
    private static final MethodHandle SET_OPTION = Cm.capturing(rdma_cma_h.rdma_set_option$address(),
            rdma_cma_h.rdma_set_option$descriptor());
    private static final MethodHandle INIT_QP_ATTR = Cm.capturing(rdma_cma_h.rdma_init_qp_attr$address(),
            rdma_cma_h.rdma_init_qp_attr$descriptor());
    private static final MethodHandle ESTABLISH = Cm.capturing(rdma_cma_h.rdma_establish$address(),
            rdma_cma_h.rdma_establish$descriptor());
    private static final MethodHandle SET_LOCAL_ECE = Cm.capturing(rdma_cma_h.rdma_set_local_ece$address(),
            rdma_cma_h.rdma_set_local_ece$descriptor());
    private static final MethodHandle GET_REMOTE_ECE = Cm.capturing(rdma_cma_h.rdma_get_remote_ece$address(),
            rdma_cma_h.rdma_get_remote_ece$descriptor());

    /** The live ids by native address, so that events name the Java object. */
    private static final Map<Long, WeakReference<CmId>> IDS = new ConcurrentHashMap<>();

    final ResourceGuard guard;
    private final MemorySegment id;
    private final PortSpace portSpace;
    private volatile EventChannel channel;
    private volatile QueuePair qp;
    /**
     * This id's entry in {@link #IDS}. Only this entry is ever removed for it: once {@code rdma_destroy_id} has freed
     * the native id, another thread's new id may already live at the same address, under its own entry.
     */
    private final WeakReference<CmId> entry;

    private CmId(MemorySegment id, EventChannel channel) {
        this.entry = new WeakReference<>(this);
        this.guard = new ResourceGuard(this,
                ResourceGuard.Lifecycle.of(this::destroy, () -> { }, this::releaseIfLeaked));
        this.id = id.reinterpret(rdma_cm_id.sizeof());
        this.channel = channel;
        this.portSpace = PortSpace.of(rdma_cm_id.ps(this.id));
        // Weakly: a leaked id (and its channel) must become unreachable for the channel's leak guard to release it.
        IDS.put(this.id.address(), entry);
    }

    /**
     * Creates an id whose events arrive on {@code channel} ({@code rdma_create_id}).
     *
     * @param channel   where its events arrive; the id is the channel's child
     * @param portSpace {@link PortSpace#TCP} for RC, {@link PortSpace#UDP} for UD and multicast
     * @return the new, unbound id
     * @throws RdmaException         if {@code rdma_create_id} fails
     * @throws IllegalStateException if the channel is closed
     */
    public static CmId create(EventChannel channel, PortSpace portSpace) throws RdmaException {
        return ResourceGuard.create(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment slot = arena.allocate(ValueLayout.ADDRESS);
                Cm.check("rdma_create_id", CREATE_ID, null, channel.segment(), slot, MemorySegment.NULL,
                        portSpace.value());
                return new CmId(slot.get(ValueLayout.ADDRESS, 0), channel);
            }
        }, id -> id.guard, channel.guard);
    }

    /**
     * An id made by {@code rdma_create_ep} from {@code info} (see {@link AddressInfo#lookup}): bound for a passive
     * entry, resolved (address and route, by librdmacm, within its own 2 s timeouts) for an active one. Its events then
     * arrive on {@code channel}.
     *
     * @param info    an answer of {@link AddressInfo#lookup}
     * @param channel where its events arrive
     * @return the bound or resolved id
     * @throws RdmaException         if {@code rdma_create_ep} fails, e.g. when the address does not resolve
     * @throws IllegalStateException if the channel is closed
     */
    public static CmId createEndpoint(AddressInfo info, EventChannel channel) throws RdmaException {
        return ResourceGuard.create(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment slot = arena.allocate(ValueLayout.ADDRESS);
                Cm.check("rdma_create_ep", CREATE_EP, "for " + info, slot, info.toNative(arena), MemorySegment.NULL,
                        MemorySegment.NULL);
                MemorySegment ep = slot.get(ValueLayout.ADDRESS, 0);
                try {
                    // rdma_create_ep made a synchronous id (blocking calls); moving it to a channel makes it ours.
                    Cm.check("rdma_migrate_id", MIGRATE, null, ep, channel.segment());
                } catch (RdmaException e) {
                    rdma_cma_h.rdma_destroy_ep(ep);
                    throw e;
                }
                return new CmId(ep, channel);
            }
        }, id -> id.guard, channel.guard);
    }

    /** The Java id for a native one that a connect request brought on {@code channel}. */
    static CmId adoptRequest(MemorySegment id, EventChannel channel) {
        return ResourceGuard.create(() -> new CmId(id, channel), cmId -> cmId.guard, channel.guard);
    }

    /** The Java id of a native one, or null if it is not (or no longer) known. */
    static CmId known(MemorySegment id) {
        WeakReference<CmId> known = IDS.get(id.address());
        return known == null ? null : known.get();
    }

    /**
     * Binds to a local address and port (port 0: any), as a listener does before {@link #listen}
     * ({@code rdma_bind_addr}).
     *
     * @param local a local address (the wildcard address for all devices); port 0 picks a free one
     * @throws RdmaException if {@code rdma_bind_addr} fails, e.g. {@code EADDRINUSE}, or an address of no RDMA
     *     device
     * @throws IllegalStateException if the id is closed
     */
    public void bind(InetSocketAddress local) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            call("rdma_bind_addr", BIND, "binding " + local, id, Sockaddrs.of(local, arena));
        }
    }

    /**
     * Starts resolving {@code destination} to an RDMA address (and a local device), from {@code source} or any local
     * address when null ({@code rdma_resolve_addr}); ends with {@link CmEventType#ADDR_RESOLVED} or
     * {@link CmEventType#ADDR_ERROR} within {@code timeout}.
     *
     * @param source      the local address to use, or {@code null} for any
     * @param destination the peer's address and port
     * @param timeout     how long the resolution may take, 1 ms to about 24 days
     * @throws RdmaException            if {@code rdma_resolve_addr} fails to start
     * @throws IllegalArgumentException if {@code timeout} is out of range
     * @throws IllegalStateException if the id is closed
     */
    public void resolveAddress(InetSocketAddress source, InetSocketAddress destination, Duration timeout)
            throws RdmaException {
        int ms = millis(timeout);
        try (Arena arena = Arena.ofConfined()) {
            call("rdma_resolve_addr", RESOLVE_ADDR, "resolving " + destination, id, Sockaddrs.of(source, arena),
                    Sockaddrs.of(destination, arena), ms);
        }
    }

    /**
     * Starts resolving the route to the resolved address ({@code rdma_resolve_route}); ends with
     * {@link CmEventType#ROUTE_RESOLVED} or {@link CmEventType#ROUTE_ERROR} within {@code timeout}.
     *
     * @param timeout how long the resolution may take, 1 ms to about 24 days
     * @throws RdmaException            if {@code rdma_resolve_route} fails to start, e.g. before the address is
     *     resolved
     * @throws IllegalArgumentException if {@code timeout} is out of range
     * @throws IllegalStateException if the id is closed
     */
    public void resolveRoute(Duration timeout) throws RdmaException {
        call("rdma_resolve_route", RESOLVE_ROUTE, null, id, millis(timeout));
    }

    /**
     * Resolves address and route to {@code destination}, waiting for each, all within {@code timeout}.
     *
     * @param destination the peer's address and port
     * @param timeout     the time both resolutions may take together
     * @throws CmEventException     if either fails or does not finish in time
     * @throws RdmaException        if a resolution fails to start
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public void resolve(InetSocketAddress destination, Duration timeout)
            throws RdmaException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        resolveAddress(null, destination, timeout);
        await(timeout, CmEventType.ADDR_RESOLVED);
        Duration left = Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
        resolveRoute(left);
        await(left, CmEventType.ROUTE_RESOLVED);
    }

    /**
     * Listens for connect requests on the bound address; they arrive as {@link CmEventType#CONNECT_REQUEST}.
     *
     * @param backlog how many requests may wait to be accepted (0: the kernel's maximum)
     * @throws RdmaException            if {@code rdma_listen} fails, e.g. when the id is not bound
     * @throws IllegalArgumentException if {@code backlog} is negative
     * @throws IllegalStateException if the id is closed
     */
    public void listen(int backlog) throws RdmaException {
        if (backlog < 0) {
            throw new IllegalArgumentException("backlog must be >= 0, not " + backlog);
        }
        call("rdma_listen", LISTEN, null, id, backlog);
    }

    /**
     * Sends a connect request (or, on the UDP port space, a service-ID request) to the resolved peer
     * ({@code rdma_connect}); ends with {@link CmEventType#ESTABLISHED}, or {@link CmEventType#REJECTED},
     * {@link CmEventType#UNREACHABLE} or {@link CmEventType#CONNECT_ERROR}.
     *
     * @param parameters what this side offers, and its private data (at most
     *     {@link ConnectionParameters#MAX_CONNECT_DATA} bytes, {@link ConnectionParameters#MAX_UD_REQUEST_DATA} on
     *     the UDP port space)
     * @throws RdmaException            if {@code rdma_connect} fails, e.g. before the route is resolved
     * @throws IllegalArgumentException if the private data is too long, or on the TCP port space the id has no queue
     *     pair created through it and {@code parameters} name none ({@link ConnectionParameters#withQpNumber})
     * @throws IllegalStateException if the id is closed
     */
    public void connect(ConnectionParameters parameters) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offer = parameters.toNative(arena, portSpace == PortSpace.UDP
                    ? ConnectionParameters.MAX_UD_REQUEST_DATA : ConnectionParameters.MAX_CONNECT_DATA,
                    "a connect request");
            if (portSpace != PortSpace.UDP) {
                requireQueuePairNamed(parameters, "connect");
            }
            call("rdma_connect", CONNECT, "connecting " + this, id, offer);
        }
    }

    /**
     * Accepts the connect request this id came with ({@code rdma_accept}); ends with {@link CmEventType#ESTABLISHED}.
     * A queue pair the application built itself must be in RTS already (see {@link #queuePairAttributes}) and named
     * in {@code parameters}.
     *
     * @param parameters what this side offers, and its private data (at most
     *     {@link ConnectionParameters#MAX_ACCEPT_DATA} bytes)
     * @throws RdmaException            if {@code rdma_accept} fails
     * @throws IllegalArgumentException if the private data is too long, or the id has no queue pair created through
     *     it and {@code parameters} name none ({@link ConnectionParameters#withQpNumber})
     * @throws IllegalStateException if the id is closed
     */
    public void accept(ConnectionParameters parameters) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offer = parameters.toNative(arena, ConnectionParameters.MAX_ACCEPT_DATA, "an accept");
            requireQueuePairNamed(parameters, "accept");
            call("rdma_accept", ACCEPT, "accepting " + this, id, offer);
        }
    }

    /**
     * Completes a connection whose queue pair the application built itself ({@code rdma_establish}), on the active
     * side: after {@link CmEventType#CONNECT_RESPONSE}, once the queue pair is in RTS (see
     * {@link #queuePairAttributes}). The peer then gets {@link CmEventType#ESTABLISHED}; this side gets no further
     * event.
     *
     * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=own-queue-pair}
     *
     * @throws RdmaException         if {@code rdma_establish} fails, e.g. {@code EINVAL} before a connect response
     * @throws IllegalStateException if the id is closed, or has a queue pair created through it (the connection
     *     manager completes those connections itself)
     */
    public void establish() throws RdmaException {
        requireOwnQueuePair("establish");
        call("rdma_establish", ESTABLISH, "establishing " + this, id);
    }

    /**
     * The attributes that move a queue pair the application built itself (not through {@link #createQueuePair}) to
     * {@code target} on this id's connection ({@code rdma_init_qp_attr}), for {@link QueuePair#modify}: INIT (port,
     * P_Key index, remote access), RTR (path, the peer's queue pair number and first PSN, read depth) and RTS (first
     * PSN, ACK timeout, retries). RTR and RTS are known once the connect request arrived (passive side) or the
     * {@link CmEventType#CONNECT_RESPONSE} (active side); asked for earlier, they come back with INIT's attributes
     * only, which {@link QueuePair#modify} refuses. The remote access rights too: before that the connection manager
     * grants none, so the active side takes its queue pair to INIT after the response (or again then,
     * INIT → INIT). The {@linkplain #setTypeOfService type of service} and {@linkplain #setAckTimeout ACK timeout}
     * set on the id are part of them. On the UDP port space every target gives INIT's attributes (P_Key index, port,
     * Q_Key): a UD queue pair then moves to RTR with the state alone and to RTS with a send PSN, as
     * {@link QpAttributes#builder()} makes them.
     *
     * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=own-queue-pair}
     *
     * @param target {@link QpState#INIT}, {@link QpState#RTR} or {@link QpState#RTS}
     * @return exactly the attributes the connection manager gives for {@code target}, its state among them
     * @throws RdmaException            if {@code rdma_init_qp_attr} fails, e.g. before the id has a device
     * @throws IllegalArgumentException if {@code target} is another state
     * @throws IllegalStateException    if the id is closed
     * @throws NullPointerException     if {@code target} is null
     */
    public QpAttributes queuePairAttributes(QpState target) throws RdmaException {
        if (!EnumSet.of(QpState.INIT, QpState.RTR, QpState.RTS).contains(Objects.requireNonNull(target, "target"))) {
            throw new IllegalArgumentException("the connection manager gives attributes for INIT, RTR and RTS, not "
                    + target);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(arena);
            ibv_qp_attr.qp_state(attr, target.value());
            MemorySegment mask = arena.allocate(ValueLayout.JAVA_INT);
            call("rdma_init_qp_attr", INIT_QP_ATTR, "for " + target + " on " + this, id, attr, mask);
            return VerbsBridge.hooks().qpAttributes(attr, mask.get(ValueLayout.JAVA_INT, 0));
        }
    }

    /**
     * The enhanced connection establishment options this side offers in its connect request or accept
     * ({@code rdma_set_local_ece}), for a queue pair the application built itself: typically its
     * {@link QueuePair#ece()}. (For a queue pair created through the id, librdmacm offers the device's own.)
     *
     * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=ece}
     *
     * @param ece the vendor (not 0) and its options
     * @throws RdmaException            if {@code rdma_set_local_ece} fails
     * @throws IllegalArgumentException if the vendor id is 0 (which means no offer)
     * @throws IllegalStateException    if the id is closed or has a queue pair created through it
     * @throws NullPointerException     if {@code ece} is null
     */
    public void setLocalEce(Ece ece) throws RdmaException {
        if (Objects.requireNonNull(ece, "ece").vendorId() == 0) {
            throw new IllegalArgumentException("an ECE offer names its vendor: vendor id 0 means none");
        }
        requireOwnQueuePair("set the local ECE of");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offer = ibv_ece.allocate(arena);
            ibv_ece.vendor_id(offer, ece.vendorId());
            ibv_ece.options(offer, ece.options());
            call("rdma_set_local_ece", SET_LOCAL_ECE, null, id, offer);
        }
    }

    /**
     * The enhanced connection establishment options the peer offered ({@code rdma_get_remote_ece}): in its connect
     * request (passive side, from {@link CmEventType#CONNECT_REQUEST}) or its accept (active side, from
     * {@link CmEventType#CONNECT_RESPONSE}). Set them on a queue pair the application built itself with
     * {@link QueuePair#setEce} when the vendor is the device's own.
     *
     * @return the peer's offer; vendor id 0 if it made none
     * @throws RdmaException         if {@code rdma_get_remote_ece} fails
     * @throws IllegalStateException if the id is closed or has a queue pair created through it
     */
    public Ece remoteEce() throws RdmaException {
        requireOwnQueuePair("read the remote ECE of");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offer = ibv_ece.allocate(arena);
            call("rdma_get_remote_ece", GET_REMOTE_ECE, null, id, offer);
            return new Ece(ibv_ece.vendor_id(offer), ibv_ece.options(offer));
        }
    }

    /** librdmacm does these itself for a queue pair created through the id, and refuses them with EINVAL. */
    private void requireOwnQueuePair(String what) {
        guard.checkOpen();
        QueuePair managed = queuePair();
        if (managed != null) {
            throw new IllegalStateException("cannot " + what + " " + this + ": the connection manager moves its "
                    + managed + " itself; this is for a queue pair the application built");
        }
    }

    /** Without a queue pair of the id, the connection manager tells the peer the number the parameters give. */
    private void requireQueuePairNamed(ConnectionParameters parameters, String call) {
        if (queuePair() == null && parameters.qpNumber() == 0) {
            throw new IllegalArgumentException("to " + call + " without a queue pair created through " + this
                    + ", name the application's queue pair: parameters.withQpNumber(qp.qpNumber())");
        }
    }

    /**
     * Rejects the connect request this id came with, telling the peer {@code privateData} ({@code rdma_reject}).
     *
     * @param privateData bytes for the peer (at most {@link ConnectionParameters#MAX_REJECT_DATA}), or {@code null}
     * @throws RdmaException            if {@code rdma_reject} fails
     * @throws IllegalArgumentException if the private data is too long
     * @throws IllegalStateException if the id is closed
     */
    public void reject(byte[] privateData) throws RdmaException {
        byte[] data = privateData == null ? new byte[0] : privateData;
        if (data.length > ConnectionParameters.MAX_REJECT_DATA) {
            throw new IllegalArgumentException("a reject carries at most " + ConnectionParameters.MAX_REJECT_DATA
                    + " bytes of private data, not " + data.length);
        }
        try (Arena arena = Arena.ofConfined()) {
            call("rdma_reject", REJECT, "rejecting " + this, id,
                    data.length == 0 ? MemorySegment.NULL : arena.allocateFrom(ValueLayout.JAVA_BYTE, data),
                    (byte) data.length);
        }
    }

    /**
     * Disconnects ({@code rdma_disconnect}): the queue pair goes to the error state, flushing what is outstanding.
     * The peer gets {@link CmEventType#DISCONNECTED} and answers by calling {@code disconnect()} itself; only then
     * (or after the CM's timeout) does this side get its {@link CmEventType#DISCONNECTED}.
     *
     * @throws RdmaException if {@code rdma_disconnect} fails, e.g. {@code EINVAL} when not connected
     * @throws IllegalStateException if the id is closed
     */
    public void disconnect() throws RdmaException {
        call("rdma_disconnect", DISCONNECT, "disconnecting " + this, id);
    }

    /**
     * Tells the connection manager about {@code event} on this id's queue pair ({@code rdma_notify}): typically
     * {@link AsyncEventType#COMM_EST}, when data arrived on the passive side before {@link CmEventType#ESTABLISHED},
     * which lets the connection manager complete the connection at once.
     *
     * @param event the queue pair's async event
     * @throws RdmaException if {@code rdma_notify} fails
     * @throws IllegalStateException if the id is closed
     */
    public void notify(AsyncEventType event) throws RdmaException {
        call("rdma_notify", NOTIFY, null, id, event.value());
    }

    /**
     * Moves this id to {@code to}: its events not yet taken, and all later ones, arrive there
     * ({@code rdma_migrate_id}).
     *
     * @param to the new channel; it becomes the id's parent in place of the old one
     * @throws RdmaException if {@code rdma_migrate_id} fails (the id stays where it was)
     * @throws IllegalStateException if the id or {@code to} is closed
     */
    public void migrate(EventChannel to) throws RdmaException {
        within(() -> {
            EventChannel from = channel;
            if (to == from) {
                return null;
            }
            // A child of to first, so that to cannot close under the call; back to from if the call fails.
            guard.replaceParent(from.guard, to.guard);
            try {
                Cm.check("rdma_migrate_id", MIGRATE, null, id, to.segment());
            } catch (RdmaException | RuntimeException e) {
                guard.replaceParent(to.guard, from.guard);
                throw e;
            }
            channel = to;
            from.handOver(this, to);
            return null;
        });
    }

    /**
     * Joins the multicast group {@code group} ({@code rdma_join_multicast}); ends with
     * {@link CmEventType#MULTICAST_JOIN}, whose {@link CmEvent#datagram()} addresses the group. A queue pair created
     * through this id is attached to the group then.
     *
     * @param group the group's IP multicast address
     * @throws RdmaException if {@code rdma_join_multicast} fails to start, e.g. before the id is bound or resolved
     * @throws IllegalStateException if the id is closed
     */
    public void joinMulticast(InetSocketAddress group) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            call("rdma_join_multicast", JOIN, "joining " + group, id, Sockaddrs.of(group, arena),
                    MemorySegment.NULL);
        }
    }

    /**
     * Leaves multicast group {@code group} ({@code rdma_leave_multicast}).
     *
     * @param group a group joined before
     * @throws RdmaException if {@code rdma_leave_multicast} fails
     * @throws IllegalStateException if the id is closed
     */
    public void leaveMulticast(InetSocketAddress group) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            call("rdma_leave_multicast", LEAVE, "leaving " + group, id, Sockaddrs.of(group, arena));
        }
    }

    /**
     * Whether the bound port may be reused while earlier connections on it wait out their time
     * ({@code RDMA_OPTION_ID_REUSEADDR}).
     *
     * @param on whether to allow it; set it before {@link #bind}
     * @throws RdmaException if {@code rdma_set_option} fails
     * @throws IllegalStateException if the id is closed
     */
    public void setReuseAddress(boolean on) throws RdmaException {
        setOption(rdma_cma_h.RDMA_OPTION_ID_REUSEADDR(), on ? 1 : 0, 4);
    }

    /**
     * Whether an id bound to an IPv6 address takes IPv6 only, leaving the same port of the IPv4 space to others
     * ({@code RDMA_OPTION_ID_AFONLY}, as {@code IPV6_V6ONLY}). Unset, the system's {@code net.ipv6.bindv6only}
     * decides; an IPv4 id is always IPv4 only.
     *
     * @param on whether to take IPv6 only; set it before {@link #bind}
     * @throws RdmaException if {@code rdma_set_option} fails, e.g. {@code EINVAL} once the id is past bound
     * @throws IllegalStateException if the id is closed
     */
    public void setAddressFamilyOnly(boolean on) throws RdmaException {
        setOption(rdma_cma_h.RDMA_OPTION_ID_AFONLY(), on ? 1 : 0, 4);
    }

    /**
     * The IP type of service of this id's traffic ({@code RDMA_OPTION_ID_TOS}, 0-255).
     *
     * @param tos the type of service byte; set it before resolving the route
     * @throws RdmaException            if {@code rdma_set_option} fails
     * @throws IllegalArgumentException if {@code tos} is not in 0..255
     * @throws IllegalStateException if the id is closed
     */
    public void setTypeOfService(int tos) throws RdmaException {
        if (tos < 0 || tos > 255) {
            throw new IllegalArgumentException("type of service is a byte: " + tos);
        }
        setOption(rdma_cma_h.RDMA_OPTION_ID_TOS(), tos, 1);
    }

    /**
     * The QP ACK timeout exponent (4.096 us * 2^timeout) the connection manager sets
     * ({@code RDMA_OPTION_ID_ACK_TIMEOUT}).
     *
     * @param exponent 0..31
     * @throws RdmaException            if {@code rdma_set_option} fails
     * @throws IllegalArgumentException if {@code exponent} is not in 0..31
     * @throws IllegalStateException if the id is closed
     */
    public void setAckTimeout(int exponent) throws RdmaException {
        if (exponent < 0 || exponent > 31) {
            throw new IllegalArgumentException("ACK timeout exponent must be in 0..31, not " + exponent);
        }
        setOption(rdma_cma_h.RDMA_OPTION_ID_ACK_TIMEOUT(), exponent, 1);
    }

    /**
     * The paths of this id's resolved route ({@code route.path_rec}), the primary first: after
     * {@link CmEventType#ROUTE_RESOLVED} (or {@link #setPath}), and on an id that came with a connect request. On such
     * an id the paths are the ones the peer's request named: one whose MTU code is none of the verbs' MTUs (a malformed
     * request) is left out.
     *
     * @return the paths; empty while the route is not resolved
     * @throws IllegalStateException if the id is closed
     */
    public List<PathRecord> paths() {
        return within(() -> {
            MemorySegment route = rdma_cm_id.route(id);
            int n = rdma_route.num_paths(route);
            MemorySegment records = rdma_route.path_rec(route);
            if (n <= 0 || records.equals(MemorySegment.NULL)) {
                return List.of();
            }
            records = records.reinterpret(ibv_sa_path_rec.sizeof() * n);
            List<PathRecord> paths = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                PathRecord path = PathRecord.read(ibv_sa_path_rec.asSlice(records, i));
                if (path != null) {
                    paths.add(path);
                }
            }
            return List.copyOf(paths);
        });
    }

    /**
     * Gives this id its route instead of resolving it ({@code RDMA_OPTION_IB_PATH}): after
     * {@link CmEventType#ADDR_RESOLVED}, in place of {@link #resolveRoute}, and like it ending with
     * {@link CmEventType#ROUTE_RESOLVED}. The path is primary and bidirectional; on RoCE the kernel still takes the
     * destination MAC from the resolved address.
     *
     * @param path the route, e.g. one {@link #paths()} gave for the same peer
     * @throws RdmaException if {@code rdma_set_option} fails, e.g. {@code EINVAL} when the address is not resolved
     *     (or the route already is)
     * @throws IllegalStateException if the id is closed
     */
    public void setPath(PathRecord path) throws RdmaException {
        Objects.requireNonNull(path, "path");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = ibv_path_data.allocate(arena);
            path.writeTo(data);
            call("rdma_set_option", SET_OPTION, "setting the path of " + this, id, rdma_cma_h.RDMA_OPTION_IB(),
                    rdma_cma_h.RDMA_OPTION_IB_PATH(), data, ibv_path_data.sizeof());
        }
    }

    private void setOption(int name, int value, int size) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(4);
            if (size == 1) {
                v.set(ValueLayout.JAVA_BYTE, 0, (byte) value);
            } else {
                v.set(ValueLayout.JAVA_INT, 0, value);
            }
            call("rdma_set_option", SET_OPTION, null, id, rdma_cma_h.RDMA_OPTION_ID(), name, v, (long) size);
        }
    }

    /**
     * Waits for the next event about this id and returns it if it is one of {@code expected}.
     *
     * @param timeout  how long to wait; {@code null} waits forever
     * @param expected the event types that count as success (with status 0)
     * @return the event
     * @throws CmEventException if another event came (a failure, or e.g. a disconnect), or none within {@code timeout}
     * @throws RdmaException    if reading the channel fails
     * @throws InterruptedException if the waiting thread is interrupted
     * @throws IllegalArgumentException if no type is given
     * @throws IllegalStateException    if the id or its channel is closed, also while waiting
     */
    public CmEvent await(Duration timeout, CmEventType... expected) throws RdmaException, InterruptedException {
        if (expected.length == 0) {
            throw new IllegalArgumentException("name the event(s) to wait for");
        }
        guard.checkOpen();
        String call = callFor(expected[0]);
        CmEvent e = channel.next(this, timeout);
        if (e == null) {
            throw new CmEventException(call, Errno.ETIMEDOUT, "no " + Arrays.toString(expected) + " for " + this
                    + " within " + timeout);
        }
        for (CmEventType t : expected) {
            if (e.type() == t && e.status() == 0) {
                return e;
            }
        }
        throw new CmEventException(call, e, "waited for " + Arrays.toString(expected) + " on " + this);
    }

    private static String callFor(CmEventType expected) {
        return switch (expected) {
            case ADDR_RESOLVED -> "rdma_resolve_addr";
            case ROUTE_RESOLVED -> "rdma_resolve_route";
            case CONNECT_REQUEST -> "rdma_listen";
            case ESTABLISHED, CONNECT_RESPONSE -> "rdma_connect";
            case DISCONNECTED -> "rdma_disconnect";
            case MULTICAST_JOIN -> "rdma_join_multicast";
            default -> "rdma_get_cm_event";
        };
    }

    /**
     * Creates this id's queue pair as {@code builder} describes it ({@code rdma_create_qp}); the connection manager
     * moves it through its states on connect and accept (a UD one is ready to send at once). The builder's protection
     * domain and completion queues must come from {@link #context()}. Close the queue pair before the id.
     *
     * @param builder the queue pair's description; {@link QueuePair.Builder#create()} is not called
     * @return the queue pair, a child of this id as well as of the builder's objects
     * @throws RdmaException            if {@code rdma_create_qp} fails, e.g. for a protection domain of another
     *     context
     * @throws CmEventException         if the connection manager no longer serves the id, e.g. a connect request
     *     whose client gave up on it
     * @throws IllegalArgumentException if the builder's objects do not fit together
     * @throws IllegalStateException    if the id is closed or already has an open queue pair
     */
    public QueuePair createQueuePair(QueuePair.Builder builder) throws RdmaException {
        guard.checkOpen();
        if (qp != null && !qp.isClosed()) {
            throw new IllegalStateException(this + " already has " + qp);
        }
        QueuePair created;
        try {
            created = VerbsBridge.hooks().createQueuePair(builder, new VerbsBridge.QpCreator() {
                @Override
                public MemorySegment create(MemorySegment pd, MemorySegment init, boolean extended)
                        throws RdmaException {
                    if (extended) {
                        Cm.check("rdma_create_qp_ex", CREATE_QP_EX, "for " + CmId.this, id, init);
                    } else {
                        Cm.check("rdma_create_qp", CREATE_QP, "for " + CmId.this
                                + " (its protection domain must come from the id's context)", id, pd, init);
                    }
                    return rdma_cm_id.qp(id);
                }

                @Override
                public void destroy(MemorySegment ignored) {
                    rdma_cma_h.rdma_destroy_qp(id);
                }
            }, guard);
        } catch (RdmaException failed) {
            throw peerGoneOr(failed);
        }
        qp = created;
        return created;
    }

    /**
     * {@code failed} as the peer's doing if the connection manager no longer serves this id's connection: a client
     * that gave up before its request was served has rejected it, and the kernel then refuses the request's queue
     * pair (EINVAL) without an event (it drops the events of a request not yet taken). The id's INIT attributes tell
     * the two apart: they exist exactly while the request lives.
     */
    private RdmaException peerGoneOr(RdmaException failed) {
        try {
            queuePairAttributes(QpState.INIT);
            return failed;
        } catch (RdmaException gone) {
            CmEventException x = new CmEventException(failed.verb(), failed.errno(), "the connection manager no "
                    + "longer serves " + this + " (its peer gave up, or went away): " + gone.getMessage());
            x.initCause(failed);
            return x;
        } catch (RuntimeException closed) {
            failed.addSuppressed(closed);
            return failed;
        }
    }

    /**
     * The queue pair created through this id, or null.
     *
     * @return the open queue pair, or {@code null} if there is none or it was closed
     */
    public QueuePair queuePair() {
        QueuePair q = qp;
        return q == null || q.isClosed() ? null : q;
    }

    /**
     * The device context this id is bound to: objects for its queue pair come from here. librdmacm opened it and keeps
     * it open; the same {@link Context} object is returned for every id on that device.
     *
     * @return the context
     * @throws IllegalStateException before the id is bound to a device (by bind to a device address, resolve, or a
     *                               connect request)
     */
    public Context context() {
        MemorySegment verbs = within(() -> rdma_cm_id.verbs(id));
        if (verbs.equals(MemorySegment.NULL)) {
            throw new IllegalStateException(this + " is not bound to a device yet: bind it to a local RDMA address or "
                    + "resolve an address first");
        }
        return VerbsBridge.hooks().adopt(verbs);
    }

    /**
     * The device port this id uses (0 before it is bound to one).
     *
     * @return the port number, from 1, or 0
     * @throws IllegalStateException if the id is closed
     */
    public int portNumber() {
        return within(() -> Byte.toUnsignedInt(rdma_cm_id.port_num(id)));
    }

    /**
     * The port space the id was created in.
     *
     * @return the port space
     */
    public PortSpace portSpace() {
        return portSpace;
    }

    /**
     * The channel its events arrive on.
     *
     * @return the current channel (see {@link #migrate})
     */
    public EventChannel channel() {
        return channel;
    }

    /**
     * The local address and port (null before bind or resolve).
     *
     * @return the local address
     * @throws IllegalStateException if the id is closed
     */
    public InetSocketAddress localAddress() {
        return within(() -> Sockaddrs.read(rdma_addr.src_storage(rdma_route.addr(rdma_cm_id.route(id)))));
    }

    /**
     * The peer's address and port (null before resolve or a connect request).
     *
     * @return the peer's address
     * @throws IllegalStateException if the id is closed
     */
    public InetSocketAddress peerAddress() {
        return within(() -> Sockaddrs.read(rdma_addr.dst_storage(rdma_route.addr(rdma_cm_id.route(id)))));
    }

    /** Calls {@code handle} as {@link Cm#check} does, {@link #within} a use of the id. */
    private void call(String function, MethodHandle handle, String detail, Object... args) throws RdmaException {
        within(() -> {
            Cm.check(function, handle, detail, args);
            return null;
        });
    }

    /**
     * Runs {@code use} of the native id counted in as a call on it, so that a concurrent {@link #close()} waits for it
     * instead of freeing the id under it, and a call after close is refused before it touches the id. Never around a
     * wait that may last: {@link #await} waits on the event channel without counting itself in.
     *
     * @throws IllegalStateException if the id is closed, or being closed
     */
    private <T, E extends Exception> T within(Use<T, E> use) throws E {
        guard.enter();
        try {
            return use.run();
        } finally {
            guard.exit();
        }
    }

    /** A use of the native id; see {@link #within}. */
    @FunctionalInterface
    private interface Use<T, E extends Exception> {
        T run() throws E;
    }

    private static int millis(Duration timeout) {
        long ms = timeout.toMillis();
        if (ms <= 0 || ms > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("timeout must be between 1 ms and ~24 days, not " + timeout);
        }
        return (int) ms;
    }

    private void destroy() throws RdmaException {
        Cm.check("rdma_destroy_id", DESTROY_ID, null, id);
        IDS.remove(id.address(), entry);
    }

    /** {@return whether {@link #close()} has completed} */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /**
     * Releases the native object. A second call does nothing.
     *
     * @throws IllegalStateException if objects created from this one are still open (nothing is closed then)
     * @throws RdmaException         if the native destroy verb fails (it stays open)
     * @throws WrongThreadException  if it is confined to another thread (it stays open)
     */
    @Override
    public void close() throws RdmaException {
        guard.close();
    }

    /** Destroys a leaked id (before its channel, if that leaked too); it must not refer to the id. */
    private Runnable releaseIfLeaked() {
        MemorySegment leaked = id;
        WeakReference<CmId> leakedEntry = entry;
        return () -> {
            IDS.remove(leaked.address(), leakedEntry);
            rdma_cma_h.rdma_destroy_id(leaked);
        };
    }

    @Override
    public String toString() {
        return "CmId[" + portSpace + ", 0x" + Long.toHexString(id.address()) + "]";
    }
}
