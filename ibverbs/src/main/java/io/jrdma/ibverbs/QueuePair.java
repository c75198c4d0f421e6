package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_context;
import io.jrdma.bindings.ibverbs.ibv_context_ops;
import io.jrdma.bindings.ibverbs.ibv_ece;
import io.jrdma.bindings.ibverbs.ibv_pd;
import io.jrdma.bindings.ibverbs.ibv_qp;
import io.jrdma.bindings.ibverbs.ibv_qp_attr;
import io.jrdma.bindings.ibverbs.ibv_qp_cap;
import io.jrdma.bindings.ibverbs.ibv_qp_init_attr;
import io.jrdma.bindings.ibverbs.ibv_qp_init_attr_ex;
import io.jrdma.bindings.ibverbs.verbs_context;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.DataPath;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.ResourceGuard;
import io.jrdma.ibverbs.internal.Verbs;
import io.jrdma.ibverbs.internal.VerbsBridge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * A queue pair ({@code struct ibv_qp}): a send queue and a receive queue bound to completion queues. Moves
 * through typed state transitions; posting goes straight to the provider and allocates nothing.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=queue-pair}
 *
 * <p><b>Threads.</b> Any number of threads may post sends and receives on one queue pair at once: the provider
 * serializes each queue, and a thread's requests keep their order. Each thread fills and posts its own
 * {@link SendWorkRequest}s and {@link ReceiveWorkRequest}s; a request object is not thread-safe and must not be
 * refilled or posted by another thread while one posts it. State changes ({@code connect}, {@code toError}, ...)
 * belong to one thread, as in libibverbs. That is the {@link ThreadConfinement#SHARED} default; a queue pair built
 * with {@link Builder#confinement confinement(CONFINED)} belongs to the thread that created it, which alone may use
 * and close it (other threads get {@link WrongThreadException}), and its posts skip the atomics that let another
 * thread's close wait for them.
 */
@SuppressWarnings("restricted")
public final class QueuePair implements AutoCloseable {
    private static final MethodHandle CREATE_QP = Errno.capturing(
            ibverbs_h.ibv_create_qp$address(), ibverbs_h.ibv_create_qp$descriptor());

    final ResourceGuard guard;
    private final ProtectionDomain pd;
    private final QpType type;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final SharedReceiveQueue srq;
    private final MemorySegment qp;
    private final MemorySegment postSendFn;
    private final int qpn;
    private final Capabilities capabilities;
    private final int maxSendSge;
    private final int maxSendWr;
    private final ReceiveQueue receives;
    /**
     * The opcodes (bit = ordinal) a request may carry past the post's quick check of the scatter/gather and inline
     * limits: those this type takes that need nothing else checked. Any other request (atomics, UD destinations, an
     * opcode the type refuses) gets {@link #checkSend}'s full check.
     */
    private final long plainOpcodes;
    private final ExtendedPost extendedPost;
    private final VerbsBridge.QpCreator creator;

    /** {@code ibv_create_qp} / {@code ibv_create_qp_ex} and {@code ibv_destroy_qp}. */
    private static final VerbsBridge.QpCreator VERBS = new VerbsBridge.QpCreator() {
        @Override
        public MemorySegment create(MemorySegment pd, MemorySegment init, boolean extended) throws RdmaException {
            if (!extended) {
                return Verbs.pointer("ibv_create_qp", CREATE_QP, pd, init);
            }
            MemorySegment ctx = ibv_pd.context(pd.reinterpret(ibv_pd.sizeof()));
            MemorySegment op = ExtendedOps.find(ctx.reinterpret(ibv_context.sizeof()),
                    verbs_context.create_qp_ex$offset());
            return Verbs.pointer("ibv_create_qp_ex", Errno.capturing(op, verbs_context.create_qp_ex.descriptor()),
                    ctx, init);
        }

        @Override
        public void destroy(MemorySegment qp) throws RdmaException {
            Verbs.check("ibv_destroy_qp", ibverbs_h.ibv_destroy_qp(qp));
        }
    };

    /**
     * The sizes a queue pair was created with (the device may round them up).
     *
     * @param maxSendWr     send queue depth
     * @param maxRecvWr     receive queue depth
     * @param maxSendSge    scatter/gather entries per send request
     * @param maxRecvSge    scatter/gather entries per receive request
     * @param maxInlineData bytes a send can carry inline
     */
    public record Capabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    }

    /**
     * Builds a queue pair: {@code pd.queuePair(QpType.RC).completionQueue(cq).create()}.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=builder}
     */
    public static final class Builder {
        private final ProtectionDomain pd;
        private final QpType type;
        private CompletionQueue sendCq;
        private CompletionQueue recvCq;
        private Capabilities caps = new Capabilities(16, 16, 1, 1, 0);
        private boolean signalAll;
        private SharedReceiveQueue srq;
        private EnumSet<SendOpcode> extendedOps;
        private ThreadConfinement confinement = ThreadConfinement.SHARED;

        Builder(ProtectionDomain pd, QpType type) {
            this.pd = pd;
            this.type = type;
        }

        /**
         * The completion queue of both queues.
         *
         * @param cq a completion queue of the protection domain's context
         * @return this builder
         */
        public Builder completionQueue(CompletionQueue cq) {
            return sendQueue(cq).receiveQueue(cq);
        }

        /**
         * The completion queue of the send queue, when the two queues report to different ones.
         *
         * @param cq a completion queue of the protection domain's context
         * @return this builder
         */
        public Builder sendQueue(CompletionQueue cq) {
            this.sendCq = cq;
            return this;
        }

        /**
         * The completion queue of the receive queue (also of the receives taken from a shared receive queue).
         *
         * @param cq a completion queue of the protection domain's context
         * @return this builder
         */
        public Builder receiveQueue(CompletionQueue cq) {
            this.recvCq = cq;
            return this;
        }

        /**
         * Receive through {@code srq} instead of a receive queue of its own.
         *
         * @param srq a shared receive queue of the same protection domain, or {@code null} for none
         * @return this builder
         */
        public Builder sharedReceiveQueue(SharedReceiveQueue srq) {
            this.srq = srq;
            return this;
        }

        /**
         * Creates the queue pair through {@code ibv_create_qp_ex} with these operations for the extended send API
         * ({@link QueuePair#extendedPost()}); classic posting keeps working.
         *
         * @param ops the operations {@link ExtendedPost} will post; at least one
         * @return this builder
         * @throws IllegalArgumentException if {@code ops} is empty
         */
        public Builder extendedSendOps(SendOpcode... ops) {
            if (ops.length == 0) {
                throw new IllegalArgumentException("name the operations the extended send API will use");
            }
            extendedOps = EnumSet.noneOf(SendOpcode.class);
            extendedOps.addAll(List.of(ops));
            return this;
        }

        /**
         * Queue depths (defaults 16 and 16).
         *
         * @param maxSendWr outstanding send requests, at least 1
         * @param maxRecvWr outstanding receive requests, at least 1
         * @return this builder
         * @throws IllegalArgumentException if either is less than 1
         */
        public Builder capacity(int maxSendWr, int maxRecvWr) {
            caps = new Capabilities(positive("maxSendWr", maxSendWr), positive("maxRecvWr", maxRecvWr),
                    caps.maxSendSge(), caps.maxRecvSge(), caps.maxInlineData());
            return this;
        }

        /**
         * Scatter/gather entries per request (defaults 1 and 1).
         *
         * @param maxSendSge scatter/gather entries per send request, at least 1
         * @param maxRecvSge scatter/gather entries per receive request, at least 1
         * @return this builder
         * @throws IllegalArgumentException if either is less than 1
         */
        public Builder sge(int maxSendSge, int maxRecvSge) {
            caps = new Capabilities(caps.maxSendWr(), caps.maxRecvWr(), positive("maxSendSge", maxSendSge),
                    positive("maxRecvSge", maxRecvSge), caps.maxInlineData());
            return this;
        }

        /**
         * Bytes a send may carry inline (default 0).
         *
         * @param bytes the largest inline payload, in bytes (the device may round up)
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is negative
         */
        public Builder maxInlineData(int bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("maxInlineData must be >= 0, not " + bytes);
            }
            caps = new Capabilities(caps.maxSendWr(), caps.maxRecvWr(), caps.maxSendSge(), caps.maxRecvSge(), bytes);
            return this;
        }

        /**
         * Whether every send request completes with a completion, signaled flag or not (default false).
         *
         * @param on {@code true} to signal every send request
         * @return this builder
         */
        public Builder signalAll(boolean on) {
            this.signalAll = on;
            return this;
        }

        /**
         * Which threads may use the queue pair (default {@link ThreadConfinement#SHARED}, any thread). A
         * {@link ThreadConfinement#CONFINED} one belongs to the thread that calls {@link #create()}.
         *
         * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=confined}
         *
         * @param confinement {@link ThreadConfinement#SHARED} or {@link ThreadConfinement#CONFINED}
         * @return this builder
         * @throws NullPointerException if {@code confinement} is null
         */
        public Builder confinement(ThreadConfinement confinement) {
            this.confinement = Objects.requireNonNull(confinement, "confinement");
            return this;
        }

        /**
         * Creates the queue pair in RESET ({@code ibv_create_qp}).
         *
         * @return the new queue pair in RESET, a child of the protection domain, its completion queues and its shared
         *     receive queue
         * @throws RdmaException                 if the create verb fails, e.g. {@code EINVAL} for sizes past the
         *     device limits, or {@code EOPNOTSUPP} for extended send operations the device lacks
         * @throws IllegalStateException         if no completion queue was given, or a parent is closed
         * @throws IllegalArgumentException      if a completion queue is of another context, or the shared receive
         *     queue of another protection domain
         * @throws UnsupportedOperationException for the XRC types, which jrdma cannot create yet
         */
        public QueuePair create() throws RdmaException {
            return create(VERBS, null);
        }

        /** Creates it through {@code creator}, also as a child of {@code owner} when there is one. */
        QueuePair create(VerbsBridge.QpCreator creator, ResourceGuard owner) throws RdmaException {
            if (sendCq == null || recvCq == null) {
                throw new IllegalStateException("a queue pair needs its completion queue(s): call completionQueue()");
            }
            for (CompletionQueue cq : new CompletionQueue[] {sendCq, recvCq}) {
                if (cq.context() != pd.context()) {
                    throw new IllegalArgumentException(cq + " belongs to another device context than " + pd);
                }
            }
            if (type == QpType.XRC_SEND || type == QpType.XRC_RECV) {
                boolean xrc = (pd.context().queryDevice().deviceCapFlags() & IBV_DEVICE_XRC()) != 0;
                throw new UnsupportedOperationException(pd.context().device().name()
                        + (xrc ? " supports XRC, but jrdma has no XRC domains yet" : " has no XRC (IBV_DEVICE_XRC)"));
            }
            if (srq != null && srq.protectionDomain() != pd) {
                throw new IllegalArgumentException(srq + " belongs to another protection domain than " + pd);
            }
            ResourceGuard[] parents = parents(owner);
            return ResourceGuard.create(() -> new QueuePair(this, creator, parents), qp -> qp.guard, parents);
        }

        private ResourceGuard[] parents(ResourceGuard owner) {
            List<ResourceGuard> all = new ArrayList<>(List.of(pd.guard, sendCq.guard, recvCq.guard));
            if (srq != null) {
                all.add(srq.guard);
            }
            if (owner != null) {
                all.add(owner);
            }
            return all.toArray(ResourceGuard[]::new);
        }

        private static int positive(String what, int v) {
            if (v < 1) {
                throw new IllegalArgumentException(what + " must be at least 1, not " + v);
            }
            return v;
        }
    }

    private QueuePair(Builder b, VerbsBridge.QpCreator creator, ResourceGuard[] parents) throws RdmaException {
        this.guard = new ResourceGuard(this,
                ResourceGuard.Lifecycle.of(this::destroy, this::checkClosable, this::releaseIfLeaked), b.confinement);
        this.creator = creator;
        this.pd = b.pd;
        this.srq = b.srq;
        this.type = b.type;
        this.sendCq = b.sendCq;
        this.recvCq = b.recvCq;
        try (Arena arena = Arena.ofConfined()) {
            // struct ibv_qp_init_attr is the leading part of struct ibv_qp_init_attr_ex (verbs.h relies on it too):
            // one struct, filled once, serves ibv_create_qp and ibv_create_qp_ex.
            MemorySegment init = ibv_qp_init_attr_ex.allocate(arena);
            ibv_qp_init_attr.send_cq(init, sendCq.segment());
            ibv_qp_init_attr.recv_cq(init, recvCq.segment());
            ibv_qp_init_attr.srq(init, srq == null ? MemorySegment.NULL : srq.segment());
            ibv_qp_init_attr.qp_type(init, type.value());
            ibv_qp_init_attr.sq_sig_all(init, b.signalAll ? 1 : 0);
            MemorySegment cap = writeCaps(ibv_qp_init_attr.cap(init), b.caps);
            if (b.extendedOps == null) {
                this.qp = creator.create(pd.segment(), init, false).reinterpret(ibv_qp.sizeof());
                this.extendedPost = null;
            } else {
                ibv_qp_init_attr_ex.comp_mask(init, IBV_QP_INIT_ATTR_PD() | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS());
                ibv_qp_init_attr_ex.pd(init, pd.segment());
                ibv_qp_init_attr_ex.send_ops_flags(init,
                        b.extendedOps.stream().mapToLong(SendOpcode::extendedFlag).reduce(0, (x, y) -> x | y));
                ExtendedOps.require(pd.context(), verbs_context.create_qp_ex$offset(), "ibv_create_qp_ex",
                        "extended queue pairs");
                this.qp = creator.create(pd.segment(), init, true).reinterpret(ibv_qp.sizeof());
                this.extendedPost = new ExtendedPost(this, guard.owner(), ibverbs_h.ibv_qp_to_qp_ex(qp),
                        Set.copyOf(b.extendedOps));
            }
            // The create verbs write back the sizes the device really gave.
            this.capabilities = new Capabilities(ibv_qp_cap.max_send_wr(cap), ibv_qp_cap.max_recv_wr(cap),
                    ibv_qp_cap.max_send_sge(cap), ibv_qp_cap.max_recv_sge(cap), ibv_qp_cap.max_inline_data(cap));
        }
        this.maxSendSge = capabilities.maxSendSge();
        this.maxSendWr = capabilities.maxSendWr();
        this.plainOpcodes = plainOpcodes(type);
        this.qpn = ibv_qp.qp_num(qp);
        MemorySegment ops = ibv_context.ops(pd.context().segment());
        this.postSendFn = ibv_context_ops.post_send(ops);
        this.receives = new ReceiveQueue(guard, "ibv_post_recv", ibv_context_ops.post_recv(ops), qp.address(), pd,
                capabilities.maxRecvSge(), capabilities.maxRecvWr());
        pd.context().asyncEvents.register(qp, this);
    }

    private static MemorySegment writeCaps(MemorySegment cap, Capabilities caps) {
        ibv_qp_cap.max_send_wr(cap, caps.maxSendWr());
        ibv_qp_cap.max_recv_wr(cap, caps.maxRecvWr());
        ibv_qp_cap.max_send_sge(cap, caps.maxSendSge());
        ibv_qp_cap.max_recv_sge(cap, caps.maxRecvSge());
        ibv_qp_cap.max_inline_data(cap, caps.maxInlineData());
        return cap;
    }

    /**
     * The extended send API ({@code ibv_wr_*}).
     *
     * @return the queue pair's one extended poster
     * @throws IllegalStateException if the queue pair was not built with {@link Builder#extendedSendOps}
     */
    public ExtendedPost extendedPost() {
        guard.checkOpen();
        if (extendedPost == null) {
            throw new IllegalStateException(this + " was built without extendedSendOps");
        }
        return extendedPost;
    }



    private void checkClosable() {
        if (extendedPost != null) {
            extendedPost.checkClosable();
        }
    }

    /**
     * Which threads may use this queue pair, as it was built.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=confinement}
     *
     * @return the confinement chosen at creation
     */
    public ThreadConfinement confinement() {
        return guard.owner() == null ? ThreadConfinement.SHARED : ThreadConfinement.CONFINED;
    }

    /**
     * The queue pair number peers address.
     *
     * @return the 24-bit queue pair number
     */
    public int qpNumber() {
        return qpn;
    }

    /**
     * The transport it was created with.
     *
     * @return the type
     */
    public QpType type() {
        return type;
    }

    /**
     * The sizes the device gave at creation (at least those asked for).
     *
     * @return the capabilities
     */
    public Capabilities capabilities() {
        return capabilities;
    }

    /**
     * The protection domain it was created in.
     *
     * @return the protection domain
     */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * The current state, asked of the device ({@code ibv_query_qp}).
     *
     * @return the state
     * @throws RdmaException         if {@code ibv_query_qp} fails
     * @throws IllegalStateException if the queue pair is closed
     */
    public QpState state() throws RdmaException {
        return query().state();
    }

    /**
     * All attributes, asked of the device ({@code ibv_query_qp}).
     *
     * @return every attribute, with the capabilities and {@code sq_draining}
     * @throws RdmaException         if {@code ibv_query_qp} fails
     * @throws IllegalStateException if the queue pair is closed
     */
    public QpAttributes query() throws RdmaException {
        guard.enter();   // a concurrent close waits for the call instead of destroying the QP under it
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = ibv_qp_attr.allocate(arena);
            MemorySegment init = ibv_qp_init_attr.allocate(arena);
            int all = QpAttribute.maskOf(EnumSet.allOf(QpAttribute.class)) | IBV_QP_CAP();
            Verbs.check("ibv_query_qp", ibverbs_h.ibv_query_qp(qp, a, all, init));
            return QpAttributes.read(a);
        } finally {
            guard.exit();
        }
    }

    /**
     * Modifies the queue pair ({@code ibv_modify_qp}) with exactly the attributes set in {@code attributes} and
     * their mask bits. Before the call, the transition from the current state (or the {@link QpAttribute#CUR_STATE}
     * given) is checked against {@link QpTransitions}: a required attribute missing or one the transition does not
     * take is refused without touching the queue pair.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=qp-modify}
     *
     * @param attributes what to set; without {@link QpAttribute#STATE} the state stays
     * @throws RdmaException            if {@code ibv_modify_qp} fails; for {@code EINVAL} the message says what
     *     the transition table expects
     * @throws IllegalArgumentException if the transition lacks a required attribute or does not take one given
     * @throws IllegalStateException    if the queue pair is closed
     */
    public void modify(QpAttributes attributes) throws RdmaException {
        guard.enter();
        try {
            modifyEntered(attributes);
        } finally {
            guard.exit();
        }
    }

    private void modifyEntered(QpAttributes attributes) throws RdmaException {
        QpState from = attributes.has(QpAttribute.CUR_STATE) ? attributes.currentState() : state();
        QpState to = attributes.has(QpAttribute.STATE) ? attributes.state() : from;
        QpTransitions.check(type, from, to, attributes.attributes());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(arena);
            int rc = ibverbs_h.ibv_modify_qp(qp, attr, attributes.write(attr));
            if (rc != 0) {
                int errno = Math.abs(rc);
                String what = "moving " + this + " from " + from + " to " + to + " with " + attributes.attributes();
                throw Errno.exception("ibv_modify_qp", errno,
                        errno == Errno.EINVAL ? what + "; " + QpTransitions.expectation(type, from, to) : what);
            }
        }
    }

    /**
     * The enhanced connection establishment options this queue pair supports ({@code ibv_query_ece}), to offer the
     * peer through the connection manager.
     *
     * @return the vendor and its option bits
     * @throws RdmaException         {@code EOPNOTSUPP} if the device has no ECE (Soft-RoCE has none), or what else
     *     {@code ibv_query_ece} fails with
     * @throws IllegalStateException if the queue pair is closed
     */
    public Ece ece() throws RdmaException {
        guard.enter();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ece = ibv_ece.allocate(arena);
            checkEce("ibv_query_ece", ibverbs_h.ibv_query_ece(qp, ece));
            return new Ece(ibv_ece.vendor_id(ece), ibv_ece.options(ece));
        } finally {
            guard.exit();
        }
    }

    /**
     * Asks for the enhanced connection establishment options the peer offered ({@code ibv_set_ece}), before the
     * queue pair moves to RTR; the provider uses those it supports in the later transitions.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=ece}
     *
     * @param ece the vendor and the options asked for
     * @return the options the provider accepted, to offer back to the peer
     * @throws RdmaException         {@code EOPNOTSUPP} if the device has no ECE (Soft-RoCE has none), or what else
     *     {@code ibv_set_ece} fails with, e.g. {@code EINVAL} for invalid options
     * @throws IllegalStateException if the queue pair is closed
     * @throws NullPointerException  if {@code ece} is null
     */
    public Ece setEce(Ece ece) throws RdmaException {
        Objects.requireNonNull(ece, "ece");
        guard.enter();
        try (Arena arena = Arena.ofConfined()) {
            // In and out: the provider writes back what it accepted.
            MemorySegment asked = ibv_ece.allocate(arena);
            ibv_ece.vendor_id(asked, ece.vendorId());
            ibv_ece.options(asked, ece.options());
            checkEce("ibv_set_ece", ibverbs_h.ibv_set_ece(qp, asked));
            return new Ece(ibv_ece.vendor_id(asked), ibv_ece.options(asked));
        } finally {
            guard.exit();
        }
    }

    private void checkEce(String verb, int rc) throws RdmaException {
        if (Math.abs(rc) == Errno.EOPNOTSUPP) {
            throw Errno.exception(verb, Errno.EOPNOTSUPP, pd.context().device().name()
                    + " has no enhanced connection establishment (ECE)");
        }
        Verbs.check(verb, rc);
    }

    /**
     * This queue pair's side of a connection on {@code port}: its LID, QPN, the given starting PSN and the GID at
     * {@code gidIndex} (-1 for none).
     *
     * @param port     the local port, from 1
     * @param gidIndex the local GID index (on RoCE, usually the RoCE v2 entry of the interface's address), or -1
     * @param psn      the first packet sequence number this side will send, 24 bits (pass it to {@link #connect} too)
     * @return what the peer needs to connect to this queue pair
     * @throws RdmaException            if the port or GID query fails
     * @throws IllegalArgumentException if {@code psn} is over 24 bits or {@code port} out of range
     * @throws IllegalStateException    if the queue pair is closed
     */
    public Endpoint endpoint(int port, int gidIndex, int psn) throws RdmaException {
        guard.checkOpen();
        Context ctx = pd.context();
        byte[] gid = gidIndex < 0 ? new byte[16] : ctx.queryGid(port, gidIndex).gid();
        return new Endpoint(ctx.queryPort(port).lid(), qpn, psn, gid);
    }

    /**
     * RESET → INIT for RC and UC ({@code ibv_modify_qp}): the port, P_Key index and what remote peers may do.
     *
     * @param options the port and remote access rights (the rest is used by the later transitions)
     * @throws RdmaException         if {@code ibv_modify_qp} fails, e.g. {@code EINVAL} when not in RESET
     * @throws IllegalStateException if this is not an RC or UC queue pair, or it is closed
     */
    public void toInit(ConnectOptions options) throws RdmaException {
        requireType("toInit(ConnectOptions)", QpType.RC, QpType.UC);
        modify(QpAttributes.builder().state(QpState.INIT).pkeyIndex(0).port(options.port())
                .accessFlags(type == QpType.UC ? options.accessFlags() & Access.REMOTE_WRITE.mask()
                        : options.accessFlags())
                .build());
    }

    /**
     * RESET → INIT for UD: the port and the Q_Key datagrams to this QP must carry.
     *
     * @param port the local port, from 1
     * @param qkey the Q_Key, a 32-bit value both sides agree on
     * @throws RdmaException         if {@code ibv_modify_qp} fails, e.g. {@code EINVAL} when not in RESET
     * @throws IllegalStateException if this is not a UD queue pair, or it is closed
     */
    public void toInitDatagram(int port, int qkey) throws RdmaException {
        requireType("toInitDatagram", QpType.UD);
        modify(QpAttributes.builder().state(QpState.INIT).pkeyIndex(0).port(port).qkey(qkey).build());
    }

    /**
     * INIT → RTR: for RC and UC, the path to {@code remote}; for UD, nothing ({@code remote} may be null).
     *
     * @param remote  the peer's endpoint (RC, UC), or {@code null} (UD)
     * @param options the path MTU, GID index, service level, GRH (hop limit, traffic class, flow label), and for RC
     *     the responder's read/atomic depth and RNR timer
     * @throws RdmaException            if {@code ibv_modify_qp} fails, e.g. {@code EINVAL} when not in INIT
     * @throws IllegalArgumentException if the peer has no LID and {@code options} no GID index
     * @throws IllegalStateException    if the queue pair is of another type, or closed
     */
    public void toReadyToReceive(Endpoint remote, ConnectOptions options) throws RdmaException {
        QpAttributes.Builder rtr = QpAttributes.builder().state(QpState.RTR);
        if (type != QpType.UD) {
            requireType("toReadyToReceive", QpType.RC, QpType.UC);
            rtr.addressVector(options.path(remote)).pathMtu(options.mtu()).destQpNumber(remote.qpn())
                    .receivePsn(remote.psn());
        }
        if (type == QpType.RC) {
            rtr.maxDestReadAtomic(options.maxReadAtomic()).minRnrTimer(options.minRnrTimer());
        }
        modify(rtr.build());
    }

    /**
     * RTR → RTS with send PSN {@code sendPsn} (24 bits); for RC also the ACK timeout and retries.
     *
     * @param sendPsn the first packet sequence number to send, the one advertised in this side's {@link Endpoint}
     * @param options for RC, the ACK timeout, retry counts and read/atomic depth
     * @throws RdmaException            if {@code ibv_modify_qp} fails, e.g. {@code EINVAL} when not in RTR
     * @throws IllegalArgumentException if {@code sendPsn} is over 24 bits, or the queue pair is in RTS or SQD
     *     already (staying in RTS takes no send PSN: {@link QpTransitions})
     * @throws IllegalStateException    if the queue pair is closed
     */
    public void toReadyToSend(int sendPsn, ConnectOptions options) throws RdmaException {
        QpAttributes.Builder rts = QpAttributes.builder().state(QpState.RTS).sendPsn(sendPsn);
        if (type == QpType.RC) {
            rts.timeout(options.timeout()).retryCount(options.retryCount()).rnrRetry(options.rnrRetry())
                    .maxReadAtomic(options.maxReadAtomic());
        }
        modify(rts.build());
    }

    /**
     * RESET → INIT → RTR → RTS to {@code remote}, sending from PSN {@code localPsn}: all an RC or UC queue pair needs
     * after the endpoints are exchanged.
     *
     * @param remote   the peer's endpoint
     * @param localPsn the first packet sequence number this side sends, as advertised in its own endpoint
     * @param options  the path and the RC timers
     * @throws RdmaException            if a transition fails (the queue pair stays in the state reached)
     * @throws IllegalArgumentException if the peer has no LID and {@code options} no GID index
     * @throws IllegalStateException    if this is not an RC or UC queue pair, or it is closed
     */
    public void connect(Endpoint remote, int localPsn, ConnectOptions options) throws RdmaException {
        toInit(options);
        toReadyToReceive(remote, options);
        toReadyToSend(localPsn, options);
    }

    /**
     * Any state → ERR: outstanding requests complete with {@link WcStatus#WR_FLUSH_ERR}.
     *
     * @throws RdmaException         if {@code ibv_modify_qp} fails
     * @throws IllegalStateException if the queue pair is closed
     */
    public void toError() throws RdmaException {
        modify(QpAttributes.builder().state(QpState.ERR).build());
    }

    /**
     * Any state → RESET: queues emptied, ready for INIT again (recovery after an error).
     *
     * @throws RdmaException         if {@code ibv_modify_qp} fails
     * @throws IllegalStateException if the queue pair is closed
     */
    public void reset() throws RdmaException {
        modify(QpAttributes.builder().state(QpState.RESET).build());
    }

    /**
     * RTS → SQD: the send queue drains and stops.
     *
     * @throws RdmaException         if {@code ibv_modify_qp} fails, e.g. {@code EINVAL} when not in RTS
     * @throws IllegalStateException if the queue pair is closed
     */
    public void toSendQueueDrained() throws RdmaException {
        modify(QpAttributes.builder().state(QpState.SQD).build());
    }

    /**
     * Posts a chain of send requests ({@code ibv_post_send} through the provider's {@code post_send}).
     *
     * @param head the first request of the chain ({@link SendWorkRequest#next})
     * @throws RdmaException             naming the first request of the chain that was not posted (nor any after it)
     * @throws IllegalArgumentException if a request does not fit this queue pair (too many entries, inline data over
     *                                  its limit, an opcode its type cannot do, a UD send without destination, a
     *                                  region, address handle or window of another protection domain, a chain
     *                                  longer than the send queue), or carries operands its opcode does not read
     *                                  (an RDMA operation without {@code rdma(...)}, an atomic without
     *                                  {@code atomic(...)}, a {@code datagram(...)} destination on a connected queue
     *                                  pair), or inline data from dma-buf memory
     * @throws IllegalStateException    if the queue pair, or a region, address handle or window a request names, is
     *                                  closed, or this thread has an {@link #extendedPost()} batch open on it
     * @throws WrongThreadException     if the queue pair is {@link ThreadConfinement#CONFINED} to another thread
     * @throws NullPointerException     if {@code head} is null
     */
    public void postSend(SendWorkRequest head) throws RdmaException {
        Objects.requireNonNull(head, "head");
        checkNotInOwnBatch();
        boolean holds = checkChain(head);
        guard.enter();   // refuses a closed queue pair, and makes a concurrent close wait for the post
        // The holds of the requests up to lastHeld are released on every path out, once.
        SendWorkRequest lastHeld = null;
        boolean binds = false;
        int rc;
        try {
            for (SendWorkRequest wr = head; holds && wr != null; wr = wr.next()) {
                if (wr.holdsAnything()) {
                    wr.hold();
                    lastHeld = wr;
                    binds |= wr.opcode() == SendOpcode.BIND_MW;   // a window bind always holds its window
                }
            }
            rc = (int) DataPath.POST_SEND.invokeExact(postSendFn, qp.address(), head.segment(),
                    head.badWrSlot().address());
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        } finally {
            for (SendWorkRequest wr = head; lastHeld != null; wr = wr.next()) {
                wr.release();
                if (wr == lastHeld) {
                    break;
                }
            }
            guard.exit();
        }
        // The requests before the provider's bad_wr were posted even when the post failed: a window bound by one
        // of them has its new rkey in the device, so the binding must name it by that rkey too.
        // The slot is cleared after a failure: a provider that fails without naming a request leaves it null.
        long bad = rc == 0 ? 0 : badRequest(head);
        for (SendWorkRequest wr = head; binds && wr != null && wr.segment().address() != bad; wr = wr.next()) {
            wr.posted();
        }
        if (rc != 0) {
            throw notPosted(head, bad, rc);
        }
    }

    /**
     * Refuses a chain that does not fit this queue pair (see {@link #postSend}), before the post enters the guard:
     * it reads only the requests and this queue pair's fixed limits.
     *
     * @return whether a request of the chain {@linkplain SendWorkRequest#hold() holds} anything for the call
     */
    private boolean checkChain(SendWorkRequest head) {
        boolean holds = false;
        int length = 0;
        for (SendWorkRequest wr = head; wr != null; wr = wr.next()) {
            if (++length > maxSendWr) {
                throw chainTooLong(head);
            }
            wr.check(pd);
            SendOpcode op = wr.opcode();
            if (wr.sgeCount() > maxSendSge || wr.isInline() || (plainOpcodes & 1L << op.ordinal()) == 0
                    || wr.operands() != op.operands()) {
                checkSend(wr);
            }
            holds |= wr.holdsAnything();
        }
        return holds;
    }

    /**
     * Refuses a post (or window bind) from the thread that holds this queue pair's extended batch: the provider holds
     * the send queue's lock from {@code ibv_wr_start} to its end, so the post would spin on it forever, inside a
     * critical downcall that no safepoint can interrupt (the whole JVM would stop).
     */
    void checkNotInOwnBatch() {
        ExtendedPost x = extendedPost;
        if (x != null && x.isOpenOnThisThread()) {
            throw new IllegalStateException("this thread has an extended batch open on " + this
                    + ": post through it, or complete() or abort() it first");
        }
    }

    // The failures of postSend are built out of line: the post stays small enough to inline into its caller.

    /**
     * The refusal of a chain longer than the send queue. A loop through a request that holds something for the post
     * is named by that request, the first met twice: its second hold would refuse it the same way.
     */
    private IllegalArgumentException chainTooLong(SendWorkRequest head) {
        Set<SendWorkRequest> holding = Collections.newSetFromMap(new IdentityHashMap<>());
        SendWorkRequest wr = head;
        for (int i = 0; i < maxSendWr; i++, wr = wr.next()) {
            if (wr.holdsAnything() && !holding.add(wr)) {
                return wr.metTwice();
            }
        }
        return new IllegalArgumentException("a chain of more than " + maxSendWr
                + " requests (a cycle?) cannot fit this queue pair's send queue");
    }

    private static long badRequest(SendWorkRequest head) {
        long bad = head.badWrSlot().get(ValueLayout.ADDRESS, 0).address();
        head.badWrSlot().set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        return bad;
    }

    private static RdmaException notPosted(SendWorkRequest head, long bad, int rc) {
        int index = 0;
        SendWorkRequest wr = head;
        while (wr != null && wr.segment().address() != bad) {
            wr = wr.next();
            index++;
        }
        return Errno.exception("ibv_post_send", Math.abs(rc), wr == null ? ReceiveWorkRequest.UNNAMED_FAILURE
                : "request #" + index + " (wr_id " + wr.idValue() + ") and those after it were not posted");
    }

    /**
     * Posts a chain of receive requests ({@code ibv_post_recv} through the provider's {@code post_recv}).
     *
     * @param head the first request of the chain ({@link ReceiveWorkRequest#next})
     * @throws RdmaException             naming the first request of the chain that was not posted (nor any after it)
     * @throws IllegalArgumentException if a request has more entries than the queue takes, a region of another
     *                                  protection domain, or the chain is longer than the receive queue
     * @throws IllegalStateException    if the queue pair or a region a request names is closed, or the queue pair
     *                                  receives through a shared receive queue
     * @throws WrongThreadException     if the queue pair is {@link ThreadConfinement#CONFINED} to another thread
     */
    public void postReceive(ReceiveWorkRequest head) throws RdmaException {
        if (srq != null) {
            throw new IllegalStateException(this + " receives through " + srq + ": post there");
        }
        receives.post(head);
    }

    private void checkSend(SendWorkRequest wr) {
        if (wr.sgeCount() > maxSendSge) {
            throw new IllegalArgumentException("send request has " + wr.sgeCount()
                    + " scatter/gather entries; this queue pair takes " + maxSendSge);
        }
        if (wr.isInline() && wr.totalBytes() == 0) {
            // Nothing to inline: a request that means nothing, and one providers treat differently.
            throw new IllegalArgumentException("an inline request needs data to inline; clear inline(false)");
        }
        if (wr.isInline() && wr.totalBytes() > capabilities.maxInlineData()) {
            throw new IllegalArgumentException("inline send of " + wr.totalBytes() + " bytes; this queue pair "
                    + "inlines at most " + capabilities.maxInlineData());
        }
        if (type == QpType.UD) {
            AddressHandle ah = wr.addressHandle();
            if (ah == null) {
                throw new IllegalArgumentException("a UD send needs its destination: call datagram(ah, qpn, qkey)");
            }
            if (ah.isClosed()) {
                throw new IllegalStateException(ah + " is closed");
            }
        }
        if (wr.isInline() && !wr.inlinesMappedMemory()) {
            // The CPU copies inline data from the entries' addresses, which for dma-buf memory are device IOVAs.
            throw new IllegalArgumentException("inline data cannot come from dma-buf memory, which this process "
                    + "has not mapped: send it without inline(true)");
        }
        SendOpcode op = wr.opcode();
        if (type != QpType.UD && wr.operands() == Operands.DATAGRAM) {
            // The union would hand the address handle's heap address to the device as a remote address.
            throw new IllegalArgumentException("datagram(...) destinations are for UD queue pairs, not " + type);
        }
        if (op.operands() != Operands.NONE && wr.operands() != op.operands()) {
            throw new IllegalArgumentException(op + " needs its operands: call "
                    + (op.operands() == Operands.RDMA ? "rdma(remoteAddress, rkey)" : "atomic(...)")
                    + " after the last reset() or datagram(...)");
        }
        if (op == SendOpcode.BIND_MW && wr.window() == null) {
            // The provider would follow the request's (null) window pointer.
            throw new IllegalArgumentException("a BIND_MW request names its window: make it with bindWindow(...)");
        }
        if (op.isAtomic() && (wr.sgeCount() != 1 || wr.totalBytes() != 8)) {
            throw new IllegalArgumentException(op + " needs exactly one 8-byte local entry for the old value");
        }
        if (!takes(type, op)) {
            throw new IllegalArgumentException(op + " is not supported on a " + type + " queue pair");
        }
    }

    private static boolean takes(QpType type, SendOpcode op) {
        return type == QpType.RC || op == SendOpcode.SEND || op == SendOpcode.SEND_WITH_IMM
                || type == QpType.UC && (op == SendOpcode.RDMA_WRITE || op == SendOpcode.RDMA_WRITE_WITH_IMM);
    }

    private static long plainOpcodes(QpType type) {
        long mask = 0;
        for (SendOpcode op : SendOpcode.values()) {
            // BIND_MW is never plain: its window must be checked, or the provider follows a null window pointer.
            if (type != QpType.UD && !op.isAtomic() && op != SendOpcode.BIND_MW && takes(type, op)) {
                mask |= 1L << op.ordinal();
            }
        }
        return mask;
    }

    private void requireType(String what, QpType... types) {
        for (QpType t : types) {
            if (t == type) {
                return;
            }
        }
        throw new IllegalStateException(what + " is not for a " + type + " queue pair");
    }

    /** Frees a leaked queue pair; it must not refer to this object. */
    private Runnable releaseIfLeaked() {
        MemorySegment leaked = qp;
        VerbsBridge.QpCreator by = creator;
        Context from = pd.context();
        return () -> {
            try {
                by.destroy(leaked);
            } catch (RdmaException e) {
                throw new IllegalStateException(e);
            }
            from.asyncEvents.unregister(leaked, null);
        };
    }

    private void destroy() throws RdmaException {
        creator.destroy(qp);
        pd.context().asyncEvents.unregister(qp, this);
    }

    MemorySegment segment() {
        guard.checkOpen();
        return qp;
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
        return "QueuePair[" + type + ", qpn 0x" + Integer.toHexString(qpn) + "]";
    }
}
