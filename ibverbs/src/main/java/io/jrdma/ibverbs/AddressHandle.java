package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_ah;
import io.jrdma.bindings.ibverbs.ibv_ah_attr;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The path to a remote port for unreliable-datagram sends ({@code struct ibv_ah}).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=address-handle}
 */
@SuppressWarnings("restricted")
public final class AddressHandle implements AutoCloseable {
    private static final MethodHandle CREATE_AH = Errno.capturing(
            ibverbs_h.ibv_create_ah$address(), ibverbs_h.ibv_create_ah$descriptor());
    private static final MethodHandle CREATE_AH_FROM_WC = Errno.capturing(
            ibverbs_h.ibv_create_ah_from_wc$address(), ibverbs_h.ibv_create_ah_from_wc$descriptor());
    /** Bytes of the Global Route Header that lead every UD receive buffer. */
    public static final int GRH_BYTES = 40;

    final ResourceGuard guard;
    private final ProtectionDomain pd;
    private final MemorySegment ah;
    /** The kernel's handle, kept for messages: the native struct is freed when this closes. */
    private final int handle;

    private AddressHandle(ProtectionDomain pd, MemorySegment ah) {
        this.guard = new ResourceGuard(this, ResourceGuard.Lifecycle.of(this::destroy, this::releaseIfLeaked));
        this.pd = pd;
        this.ah = ah.reinterpret(ibv_ah.sizeof());
        this.handle = ibv_ah.handle(this.ah);
    }

    /**
     * The protection domain it belongs to: only queue pairs of that domain may send through it.
     *
     * @return the protection domain it was created in
     */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** {@code ibv_create_ah} along {@code path}. */
    static AddressHandle create(ProtectionDomain pd, AddressVector path) throws RdmaException {
        if (path.port() == 0) {
            throw new IllegalArgumentException("an address handle needs its local port: " + path);
        }
        return ResourceGuard.create(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment attr = ibv_ah_attr.allocate(arena);
                path.write(attr);
                return new AddressHandle(pd, Verbs.pointer("ibv_create_ah", CREATE_AH, pd.segment(), attr));
            }
        }, ah -> ah.guard, pd.guard);
    }

    /** {@code ibv_create_ah} from a filled native {@code struct ibv_ah_attr} (e.g. one the connection manager gave). */
    static AddressHandle fromAttributes(ProtectionDomain pd, MemorySegment attr) throws RdmaException {
        if (attr.byteSize() < ibv_ah_attr.sizeof()) {
            throw new IllegalArgumentException("struct ibv_ah_attr is " + ibv_ah_attr.sizeof() + " bytes, got "
                    + attr.byteSize());
        }
        return ResourceGuard.create(
                () -> new AddressHandle(pd, Verbs.pointer("ibv_create_ah", CREATE_AH, pd.segment(), attr)),
                ah -> ah.guard, pd.guard);
    }

    /**
     * {@code ibv_create_ah_from_wc}: the path back to the sender of receive completion {@code index}, whose buffer
     * starts with the GRH in {@code grh} (the first {@link #GRH_BYTES} bytes of the receive buffer).
     */
    static AddressHandle fromCompletion(ProtectionDomain pd, WorkCompletions wcs, int index, MemorySegment grh, int port)
            throws RdmaException {
        if (grh.byteSize() < GRH_BYTES) {
            throw new IllegalArgumentException("the GRH is " + GRH_BYTES + " bytes, got " + grh.byteSize());
        }
        MemorySegment wc = wcs.slot(index);
        return ResourceGuard.create(() -> new AddressHandle(pd, Verbs.pointer("ibv_create_ah_from_wc",
                CREATE_AH_FROM_WC, pd.segment(), wc, grh, (byte) port)), ah -> ah.guard, pd.guard);
    }

    MemorySegment segment() {
        return ah;
    }

    /** Frees a leaked address handle; it must not refer to this object. */
    private Runnable releaseIfLeaked() {
        MemorySegment leaked = ah;
        return () -> ibverbs_h.ibv_destroy_ah(leaked);
    }

    private void destroy() throws RdmaException {
        Verbs.check("ibv_destroy_ah", ibverbs_h.ibv_destroy_ah(ah));
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
        return "AddressHandle[handle " + handle + "]";
    }
}
