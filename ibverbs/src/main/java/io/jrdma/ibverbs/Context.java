package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_context;
import io.jrdma.bindings.ibverbs.ibv_device_attr;
import io.jrdma.bindings.ibverbs.ibv_device_attr_ex;
import io.jrdma.bindings.ibverbs.ibv_odp_caps;
import io.jrdma.bindings.ibverbs.ibv_query_device_ex_input;
import io.jrdma.bindings.ibverbs.ibv_gid_entry;
import io.jrdma.bindings.ibverbs.ibv_port_attr;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.bindings.ibverbs.verbs_context;
import io.jrdma.ibverbs.internal.DataPath;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * An open RDMA device ({@code struct ibv_context}): the root every other verbs object hangs off.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=open}
 *
 * <p>Closing is idempotent; any query on a closed context throws {@link IllegalStateException}, and a context
 * cannot close while objects created from it (protection domains, completion queues, ...) are open. The context of
 * a connection-manager id ({@code CmId.context()}) was opened by librdmacm, which keeps it for the life of the
 * process: closing it releases only the Java side.
 */
@SuppressWarnings("restricted")
public final class Context implements AutoCloseable {

    private static final MethodHandle OPEN_DEVICE = Errno.capturing(
            ibverbs_h.ibv_open_device$address(), ibverbs_h.ibv_open_device$descriptor());

    final ResourceGuard guard;
    /** The async events, and the objects they name. */
    final AsyncEventDispatcher asyncEvents;
    private final Device device;
    private final MemorySegment ctx;
    private final boolean adopted;
    /** The contexts librdmacm opened, by native address: one Java context each. */
    private static final Map<Long, Context> ADOPTED = new ConcurrentHashMap<>();

    private Context(Device device, MemorySegment ctx, boolean adopted) {
        this.device = device;
        this.ctx = ctx;
        this.adopted = adopted;
        // librdmacm owns the contexts it opened: an adopted one is never closed natively, leaked or not.
        this.guard = new ResourceGuard(this, ResourceGuard.Lifecycle.of(this::destroy,
                () -> adopted ? null : () -> ibverbs_h.ibv_close_device(ctx)));
        this.asyncEvents = new AsyncEventDispatcher(this, guard, ctx);
        guard.watchForLeaks();
    }

    /**
     * The context for {@code verbs}, a {@code struct ibv_context *} that librdmacm opened and keeps open: objects
     * made from it can be used with the connection manager's ids on that device.
     */
    static Context adopt(MemorySegment verbs) {
        return ADOPTED.compute(verbs.address(), (address, known) -> known != null && !known.isClosed() ? known
                : new Context(Device.of(ibv_context.device(verbs.reinterpret(ibv_context.sizeof()))),
                        verbs.reinterpret(ibv_context.sizeof()), true));
    }

    /**
     * Opens the device named {@code name}, e.g. {@code rxe0}.
     *
     * @param name the device name, as in {@link Device#name()}
     * @return the open context
     * @throws RdmaException with {@code ENODEV} if no device has that name (the message lists those there are), or
     *     the error of {@code ibv_open_device}
     * @throws IllegalArgumentException if {@code name} is null or empty
     */
    public static Context open(String name) throws RdmaException {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("device name must not be empty");
        }
        return openMatching(name);
    }

    /**
     * Opens the first device of {@link Device#list()}.
     *
     * @return the open context
     * @throws RdmaException with {@code ENODEV} if the machine has no RDMA device, or the error of
     *     {@code ibv_open_device}
     */
    public static Context openFirst() throws RdmaException {
        return openMatching(null);
    }

    private static Context openMatching(String name) throws RdmaException {
        Object result = Device.withDeviceList(devices -> {
            List<String> names = devices.stream().map(d -> Device.of(d).name()).toList();
            for (MemorySegment dev : devices) {
                Device d = Device.of(dev);
                if (name == null || d.name().equals(name)) {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment state = Errno.allocateState(arena);
                        MemorySegment ctx = (MemorySegment) OPEN_DEVICE.invokeExact(state, dev);
                        if (ctx.equals(MemorySegment.NULL)) {
                            return Errno.exception("ibv_open_device", Errno.read(state));
                        }
                        return new Context(d, ctx.reinterpret(ibv_context.sizeof()), false);
                    } catch (Throwable t) {
                        throw DataPath.rethrow(t);
                    }
                }
            }
            return new RdmaException("ibv_open_device", Errno.ENODEV, Errno.name(Errno.ENODEV),
                    name == null ? "no RDMA device on this machine"
                            : "no RDMA device named '" + name + "' (devices: " + names + ")");
        });
        if (result instanceof RdmaException e) {
            throw e;
        }
        return (Context) result;
    }

    /**
     * The device this context was opened on.
     *
     * @return the device, as listed when the context was opened
     */
    public Device device() {
        return device;
    }

    /**
     * Queries the device's capabilities ({@code ibv_query_device}).
     *
     * @return the device attributes
     * @throws RdmaException if {@code ibv_query_device} fails
     * @throws IllegalStateException if the context is closed
     */
    public DeviceAttributes queryDevice() throws RdmaException {
        guard.enter();   // a concurrent close waits for this call
        try {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment a = ibv_device_attr.allocate(arena);
                Verbs.check("ibv_query_device", ibverbs_h.ibv_query_device(ctx, a));
                return deviceAttributes(a);
            }
        } finally {
            guard.exit();
        }
    }

    /**
     * Queries the extended capabilities, like verbs.h's {@code ibv_query_device_ex}: through the provider's
     * {@code query_device_ex}, or the classic query with empty extensions when the provider has none.
     *
     * @return the extended attributes
     * @throws RdmaException if the query fails
     * @throws IllegalStateException if the context is closed
     */
    public DeviceAttributesEx queryDeviceEx() throws RdmaException {
        guard.enter();   // a concurrent close waits for this call
        try {
            MemorySegment op = ExtendedOps.find(ctx, verbs_context.query_device_ex$offset());
            if (op.equals(MemorySegment.NULL)) {
                DeviceAttributes base = queryDevice();
                return new DeviceAttributesEx(base, 0, 0, 0, 0, 0, 0, 0, 0, base.physPortCount());
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment input = ibv_query_device_ex_input.allocate(arena);
                MemorySegment a = ibv_device_attr_ex.allocate(arena);
                Verbs.check("ibv_query_device_ex",
                        verbs_context.query_device_ex.invoke(op, ctx, input, a, ibv_device_attr_ex.sizeof()));
                MemorySegment odp = ibv_device_attr_ex.odp_caps(a);
                MemorySegment perTransport = ibv_odp_caps.per_transport_caps(odp);
                return new DeviceAttributesEx(deviceAttributes(ibv_device_attr_ex.orig_attr(a)),
                        ibv_odp_caps.general_caps(odp), ibv_odp_caps.per_transport_caps.rc_odp_caps(perTransport),
                        ibv_odp_caps.per_transport_caps.uc_odp_caps(perTransport),
                        ibv_odp_caps.per_transport_caps.ud_odp_caps(perTransport),
                        ibv_device_attr_ex.completion_timestamp_mask(a), ibv_device_attr_ex.hca_core_clock(a),
                        ibv_device_attr_ex.device_cap_flags_ex(a), ibv_device_attr_ex.max_dm_size(a),
                        ibv_device_attr_ex.phys_port_cnt_ex(a));
            }
        } finally {
            guard.exit();
        }
    }

    private static DeviceAttributes deviceAttributes(MemorySegment a) {
        return new DeviceAttributes(
                ibv_device_attr.fw_ver(a).getString(0),
                Long.reverseBytes(ibv_device_attr.node_guid(a)),
                Long.reverseBytes(ibv_device_attr.sys_image_guid(a)),
                ibv_device_attr.max_mr_size(a), ibv_device_attr.page_size_cap(a),
                ibv_device_attr.vendor_id(a), ibv_device_attr.vendor_part_id(a), ibv_device_attr.hw_ver(a),
                ibv_device_attr.max_qp(a), ibv_device_attr.max_qp_wr(a), ibv_device_attr.device_cap_flags(a),
                ibv_device_attr.max_sge(a), ibv_device_attr.max_sge_rd(a), ibv_device_attr.max_cq(a),
                ibv_device_attr.max_cqe(a), ibv_device_attr.max_mr(a), ibv_device_attr.max_pd(a),
                ibv_device_attr.max_qp_rd_atom(a), ibv_device_attr.max_qp_init_rd_atom(a),
                ibv_device_attr.atomic_cap(a), ibv_device_attr.max_mw(a), ibv_device_attr.max_ah(a),
                ibv_device_attr.max_srq(a), ibv_device_attr.max_srq_wr(a), ibv_device_attr.max_srq_sge(a),
                Short.toUnsignedInt(ibv_device_attr.max_pkeys(a)),
                Byte.toUnsignedInt(ibv_device_attr.phys_port_cnt(a)));
    }

    /**
     * Entry {@code index} of port {@code port}'s P_Key table ({@code ibv_query_pkey}), host byte order.
     *
     * @param port  the port number, from 1
     * @param index the table index, from 0
     * @return the 16-bit P_Key
     * @throws RdmaException if {@code ibv_query_pkey} fails, e.g. {@code EINVAL} for an index past the table
     * @throws IllegalArgumentException if {@code port} is not in [1, 255] or {@code index} is negative
     */
    public int queryPkey(int port, int index) throws RdmaException {
        guard.enter();   // a concurrent close waits for this call
        try {
            checkPort(port);
            if (index < 0) {
                throw new IllegalArgumentException("P_Key index must be >= 0, not " + index);
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment pkey = arena.allocate(ValueLayout.JAVA_SHORT);
                Verbs.check("ibv_query_pkey", ibverbs_h.ibv_query_pkey(ctx, (byte) port, index, pkey));
                return Short.toUnsignedInt(Short.reverseBytes(pkey.get(ValueLayout.JAVA_SHORT, 0)));
            }
        } finally {
            guard.exit();
        }
    }

    /**
     * Queries port {@code port} (numbered from 1) with the full {@code struct ibv_port_attr}: like the
     * {@code ibv_query_port} macro of verbs.h, through the provider's {@code query_port} when it has one.
     *
     * @param port the port number, from 1
     * @return the port attributes
     * @throws RdmaException if the query fails, e.g. {@code EINVAL} for a port the device does not have
     * @throws IllegalArgumentException if {@code port} is not in [1, 255]
     */
    public PortAttributes queryPort(int port) throws RdmaException {
        guard.enter();   // a concurrent close waits for this call
        try {
            checkPort(port);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment a = ibv_port_attr.allocate(arena);
                MemorySegment queryPort = ExtendedOps.find(ctx, verbs_context.query_port$offset());
                int rc = queryPort.equals(MemorySegment.NULL)
                        // The exported symbol fills only the legacy prefix of the struct; the rest stays zero.
                        ? ibverbs_h.ibv_query_port(ctx, (byte) port, a)
                        : verbs_context.query_port.invoke(queryPort, ctx, (byte) port, a, ibv_port_attr.sizeof());
                Verbs.check("ibv_query_port", rc);
                return new PortAttributes(PortState.of(ibv_port_attr.state(a)), Mtu.of(ibv_port_attr.max_mtu(a)),
                        Mtu.of(ibv_port_attr.active_mtu(a)), ibv_port_attr.gid_tbl_len(a),
                        ibv_port_attr.port_cap_flags(a), Integer.toUnsignedLong(ibv_port_attr.max_msg_sz(a)),
                        Short.toUnsignedInt(ibv_port_attr.pkey_tbl_len(a)), Short.toUnsignedInt(ibv_port_attr.lid(a)),
                        Short.toUnsignedInt(ibv_port_attr.sm_lid(a)), Byte.toUnsignedInt(ibv_port_attr.lmc(a)),
                        Byte.toUnsignedInt(ibv_port_attr.active_width(a)),
                        Byte.toUnsignedInt(ibv_port_attr.active_speed(a)),
                        Byte.toUnsignedInt(ibv_port_attr.phys_state(a)),
                        LinkLayer.of(Byte.toUnsignedInt(ibv_port_attr.link_layer(a))),
                        Byte.toUnsignedInt(ibv_port_attr.flags(a)), Short.toUnsignedInt(ibv_port_attr.port_cap_flags2(a)));
            }
        } finally {
            guard.exit();
        }
    }

    /**
     * Queries entry {@code index} of port {@code port}'s GID table, with its type and netdev.
     *
     * @param port  the port number, from 1
     * @param index the GID table index, from 0
     * @return the entry
     * @throws RdmaException if {@code ibv_query_gid_ex} fails, e.g. {@code ENODATA} for an empty entry
     * @throws IllegalArgumentException if {@code port} is not in [1, 255] or {@code index} is negative
     */
    public GidEntry queryGid(int port, int index) throws RdmaException {
        guard.enter();   // a concurrent close waits for this call
        try {
            checkPort(port);
            if (index < 0) {
                throw new IllegalArgumentException("GID index must be >= 0, not " + index);
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment e = ibv_gid_entry.allocate(arena);
                Verbs.check("ibv_query_gid_ex", ibverbs_h._ibv_query_gid_ex(ctx, port, index, e, 0, ibv_gid_entry.sizeof()));
                return new GidEntry(ibv_gid_entry.gid(e).toArray(ValueLayout.JAVA_BYTE), ibv_gid_entry.gid_index(e),
                        ibv_gid_entry.port_num(e), GidType.of(ibv_gid_entry.gid_type(e)), ibv_gid_entry.ndev_ifindex(e));
            }
        } finally {
            guard.exit();
        }
    }

    /**
     * Allocates a protection domain ({@code ibv_alloc_pd}).
     *
     * @return the new protection domain, a child of this context
     * @throws RdmaException if {@code ibv_alloc_pd} fails
     * @throws IllegalStateException if the context is closed
     */
    public ProtectionDomain allocateProtectionDomain() throws RdmaException {
        return ResourceGuard.create(() -> new ProtectionDomain(this), pd -> pd.guard, guard);
    }

    /**
     * A builder of a completion queue of at least {@code entries} entries: its channel, vector, extended fields and
     * {@linkplain ThreadConfinement confinement}; {@link #createCompletionQueue(int)} is its short form.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.CompletionSnippets region=builder}
     *
     * @param entries the minimum number of completions it holds
     * @return a builder; nothing is created until {@link CompletionQueue.Builder#create()}
     */
    public CompletionQueue.Builder completionQueue(int entries) {
        return new CompletionQueue.Builder(this, entries);
    }

    /**
     * Creates a polled-only completion queue on vector 0 ({@code ibv_create_cq}), the short form of
     * {@code completionQueue(entries).create()}; a channel, another vector, extended fields or confinement go through
     * {@link #completionQueue(int)}.
     *
     * @param entries the minimum number of completions it holds (the device may round up)
     * @return the new completion queue, a child of this context
     * @throws RdmaException            if {@code ibv_create_cq} fails, e.g. {@code EINVAL} for more entries than the
     *     device allows
     * @throws IllegalArgumentException if {@code entries} is less than 1
     * @throws IllegalStateException    if the context is closed
     */
    public CompletionQueue createCompletionQueue(int entries) throws RdmaException {
        return completionQueue(entries).create();
    }

    /**
     * Creates a completion channel ({@code ibv_create_comp_channel}) that completion queues report events to.
     *
     * @return the new channel, a child of this context
     * @throws RdmaException if {@code ibv_create_comp_channel} fails
     * @throws IllegalStateException if the context is closed
     */
    public CompletionChannel createCompletionChannel() throws RdmaException {
        return ResourceGuard.create(() -> new CompletionChannel(this), c -> c.guard, guard);
    }

    /**
     * The number of completion vectors of this device.
     *
     * @return the number of vectors, at least 1
     * @throws IllegalStateException if the context is closed
     */
    public int numCompletionVectors() {
        guard.enter();   // a concurrent close waits for this call
        try {
            return ibv_context.num_comp_vectors(ctx);
        } finally {
            guard.exit();
        }
    }

    /**
     * Waits for the next asynchronous event ({@code ibv_get_async_event}) and acknowledges it at once, so that
     * destroying the object it names never waits for it. While listeners are registered ({@link #onAsyncEvent}) their
     * reader takes the events: call this only on a context without listeners.
     *
     * @param timeout how long to wait; {@code null} waits forever
     * @return the event, or {@code null} if the timeout passed
     * @throws RdmaException         if {@code ibv_get_async_event} fails
     * @throws InterruptedException  if the waiting thread is interrupted
     * @throws IllegalStateException if the context is closed, or closed by another thread while this one waits
     */
    public AsyncEvent awaitAsyncEvent(Duration timeout) throws RdmaException, InterruptedException {
        return asyncEvents.await(timeout);
    }

    /**
     * Delivers every asynchronous event of this device (port up or down, a queue pair's fatal error, a completion
     * queue overrun, ...) to {@code listener}. The first listener starts one reader, a virtual thread that stops when
     * the context closes; each event is acknowledged before the listeners see it, in the order the device reported
     * them, so a listener may close the object an event names. A listener that throws is logged; delivery goes on.
     *
     * @param listener called on the reader thread, one event at a time
     * @throws IllegalArgumentException if {@code listener} is null
     * @throws IllegalStateException    if the context is closed
     */
    public void onAsyncEvent(Consumer<AsyncEvent> listener) {
        asyncEvents.addListener(listener);
    }

    /**
     * Stops delivering events to {@code listener}; the reader keeps running for the others (and later ones).
     *
     * @param listener a listener given to {@link #onAsyncEvent}; others are ignored
     */
    public void removeAsyncEventListener(Consumer<AsyncEvent> listener) {
        asyncEvents.removeListener(listener);
    }

    private void destroy() throws RdmaException {
        asyncEvents.stop();
        if (!adopted) {
            Verbs.check("ibv_close_device", ibverbs_h.ibv_close_device(ctx));
        }
    }

    /** The native {@code struct ibv_context *}. */
    MemorySegment segment() {
        return ctx;
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

    @Override
    public String toString() {
        return "Context[" + device.name() + (guard.isClosed() ? ", closed]" : "]");
    }

    private static void checkPort(int port) {
        if (port < 1 || port > 255) {
            throw new IllegalArgumentException("port numbers run from 1 to 255, not " + port);
        }
    }
}
