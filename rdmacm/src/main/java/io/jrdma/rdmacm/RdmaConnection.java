package io.jrdma.rdmacm;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionChannel;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A reliable RDMA connection, socket-like: {@link #connect} to an {@link RdmaListener}, then send and receive
 * messages, and read, write and do atomics on the memory regions the peer advertised, with no copy on either side.
 * It owns its protection domain, completion queues, queue pair and the buffers it registers; closing it tells the
 * peer and releases them all. Safe to use from several threads (operations of one kind run one at a time).
 * <p>
 * It is the simple API: each call blocks until its one operation completes, and a receiver that stops reading
 * holds its sender in the provider's RNR retries. Middleware that keeps many operations in flight, with credits
 * and pooled memory, uses {@code jrdma-endpoint}'s endpoints on a worker.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.ConnectionSnippets region=connection}
 */
public final class RdmaConnection implements AutoCloseable {
    private static final byte DATA = 0;
    private static final byte REGION = 1;
    private static final long SEND_ID = -1;
    private static final Duration DISCONNECT_WAIT = Duration.ofSeconds(3);

    private final ConnectionOptions options;
    private final EventChannel events;
    private final CmId id;
    private final List<AutoCloseable> owned = new ArrayList<>();
    private ProtectionDomain pd;
    private CompletionChannel sendChannel;
    private CompletionChannel recvChannel;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private QueuePair qp;
    private MemoryRegion sendBuffer;
    private MemoryRegion recvBuffers;
    private MemoryRegion atomicResult;
    private final List<MemoryRegion> registered = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    private ReceiveWorkRequest[] receives;
    private final SendWorkRequest sendWr = new SendWorkRequest(1, arena);
    private final WorkCompletions sendWc = new WorkCompletions(1, arena);
    private final WorkCompletions recvWc = new WorkCompletions(1, arena);
    private final ReentrantLock sendLock = new ReentrantLock();
    private final ReentrantLock recvLock = new ReentrantLock();
    /** Messages and region descriptors received while waiting for the other kind; guarded by {@link #recvLock}. */
    private final ArrayDeque<byte[]> pendingMessages = new ArrayDeque<>();
    private final ArrayDeque<RemoteRegion> pendingRegions = new ArrayDeque<>();
    private final CountDownLatch disconnected = new CountDownLatch(1);
    private byte[] peerPrivateData = new byte[0];
    private InetSocketAddress local;
    private InetSocketAddress peer;
    private volatile boolean peerClosed;
    /** Written under {@link #recvLock}. */
    private volatile long malformedMessages;
    private volatile String broken;
    private boolean closing;

    private RdmaConnection(EventChannel events, CmId id, ConnectionOptions options) throws RdmaException {
        this.events = events;
        this.id = id;
        this.options = options;
        try {
            Context ctx = id.context();
            pd = own(ctx.allocateProtectionDomain());
            sendChannel = own(ctx.createCompletionChannel());
            recvChannel = own(ctx.createCompletionChannel());
            sendCq = own(ctx.completionQueue(options.sendDepth()).channel(sendChannel).create());
            recvCq = own(ctx.completionQueue(options.receiveDepth()).channel(recvChannel).create());
            qp = own(id.createQueuePair(pd.queuePair(QpType.RC).sendQueue(sendCq).receiveQueue(recvCq)
                    .capacity(options.sendDepth(), options.receiveDepth()).sge(1, 1)));
            int slot = options.maxMessageSize() + 1;
            sendBuffer = own(pd.allocate(slot));
            recvBuffers = own(pd.allocate((long) slot * options.receiveDepth(), Access.LOCAL_WRITE));
            atomicResult = own(pd.allocate(8, Access.LOCAL_WRITE));
            receives = new ReceiveWorkRequest[options.receiveDepth()];
            for (int i = 0; i < receives.length; i++) {
                receives[i] = new ReceiveWorkRequest(1, arena).id(i).add(recvBuffers, (long) i * slot, slot);
                qp.postReceive(receives[i]);
            }
        } catch (RdmaException | RuntimeException e) {
            release();
            throw e;
        }
    }

    private <T extends AutoCloseable> T own(T resource) {
        owned.add(resource);
        return resource;
    }

    /**
     * Connects to the {@link RdmaListener} at {@code server}: resolves it, sets up this side and waits until the
     * connection is established, all within {@code timeout}.
     *
     * @param server  the listener's address
     * @param options how this side is set up, and the private data sent to the server
     * @param timeout the time the whole connect may take
     * @return the established connection, which the caller closes
     * @throws CmEventException if the address or route does not resolve, the server rejects or cannot be reached,
     *                          or it does not answer in time
     * @throws RdmaException    if setting up this side fails
     * @throws InterruptedException if the waiting thread is interrupted (nothing is left open)
     */
    public static RdmaConnection connect(InetSocketAddress server, ConnectionOptions options, Duration timeout)
            throws RdmaException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        EventChannel events = EventChannel.create();
        CmId id;
        try {
            id = CmId.create(events, PortSpace.TCP);
        } catch (RdmaException | RuntimeException e) {
            closeQuietly(events, e);
            throw e;
        }
        return setUp(events, id, options, () -> {
            id.resolve(server, timeout);
            return null;
        }, () -> {
            id.connect(ConnectionParameters.defaults().withRetryCount(options.retryCount())
                    .withResources(options.readDepth(), options.readDepth()).withPrivateData(options.privateData()));
            return id.await(left(deadline), CmEventType.ESTABLISHED).privateData();
        });
    }

    /** Sets up and accepts the connection {@code request} asks for, on its own event channel. */
    static RdmaConnection accept(CmEvent request, ConnectionOptions options, Duration timeout)
            throws RdmaException, InterruptedException {
        CmId id = request.id();
        EventChannel events;
        try {
            events = EventChannel.create();
        } catch (RdmaException | RuntimeException e) {
            closeQuietly(id, e);
            throw e;
        }
        return setUp(events, id, options, () -> {
            id.migrate(events);
            return null;
        }, () -> {
            ConnectionParameters offered = request.connection();
            id.accept(ConnectionParameters.defaults()
                    .withResources(Math.min(options.readDepth(), offered.initiatorDepth()),
                            Math.min(options.readDepth(), offered.responderResources()))
                    .withPrivateData(options.privateData()));
            id.await(timeout, CmEventType.ESTABLISHED);
            return request.privateData();
        });
    }

    /** A step of setting a connection up. */
    @FunctionalInterface
    private interface Step<T> {
        T run() throws RdmaException, InterruptedException;
    }

    /**
     * Runs {@code prepare} (which binds {@code id} to a device), builds the connection's resources, then runs
     * {@code handshake} (which returns the peer's private data); on any failure releases all of it.
     */
    private static RdmaConnection setUp(EventChannel events, CmId id, ConnectionOptions options, Step<?> prepare,
                                        Step<byte[]> handshake) throws RdmaException, InterruptedException {
        RdmaConnection c = null;
        try {
            prepare.run();
            if (options.ackTimeout() > 0) {
                // Read by the kernel when it moves the QP to RTS, during the handshake.
                id.setAckTimeout(options.ackTimeout());
            }
            c = new RdmaConnection(events, id, options);
            c.peerPrivateData = handshake.run();
            c.start();
            return c;
        } catch (RdmaException | InterruptedException | RuntimeException e) {
            if (c != null) {
                closeQuietly(c::release, e);
            } else {
                closeQuietly(id, e);
                closeQuietly(events, e);
            }
            throw e;
        }
    }

    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
    }

    private void start() {
        local = id.localAddress();
        peer = id.peerAddress();
        events.startEventLoop(e -> {
            if (e.type() == CmEventType.DISCONNECTED) {
                onDisconnected();
            }
        });
    }

    /** The peer disconnected (or answered our disconnect): answer it, which flushes what is outstanding. */
    private synchronized void onDisconnected() {
        if (!closing) {
            peerClosed = true;
            try {
                id.disconnect();
            } catch (RdmaException ignored) {
                // Already disconnecting: the queue pair is in error either way.
            }
        }
        disconnected.countDown();
    }

    /**
     * The private data the peer sent with its connect request or its accept (padded by the CM to its message size).
     *
     * @return a copy of the bytes
     */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /**
     * This side's address and port.
     *
     * @return the local address
     */
    public InetSocketAddress localAddress() {
        return local;
    }

    /**
     * The peer's address and port.
     *
     * @return the peer's address
     */
    public InetSocketAddress peerAddress() {
        return peer;
    }

    /**
     * Whether the connection can still carry traffic: not closed by either side, not broken by an error.
     *
     * @return whether it is open
     */
    public boolean isOpen() {
        return !peerClosed && broken == null && !isClosing();
    }

    private synchronized boolean isClosing() {
        return closing;
    }

    /**
     * Registers {@code size} bytes of new memory in this connection's protection domain, released with the
     * connection. Give {@link Access#REMOTE_READ}, {@link Access#REMOTE_WRITE} or {@link Access#REMOTE_ATOMIC} (with
     * {@link Access#LOCAL_WRITE}) for regions the peer will access, then {@link #advertise} them.
     *
     * @param size   the number of bytes
     * @param access the region's rights; none for a region only sent from
     * @return the region; the connection closes it, or the caller may close it earlier
     * @throws RdmaException            if the registration fails
     * @throws IllegalArgumentException if {@code size} is not positive or the rights are inconsistent
     * @throws IllegalStateException    if the connection is closed
     */
    public MemoryRegion register(long size, Access... access) throws RdmaException {
        MemoryRegion mr;
        synchronized (this) {
            checkNotClosing("register");
            mr = pd.allocate(size, access);
            registered.add(mr);
        }
        return mr;
    }

    /**
     * Sends the descriptor of {@code region} (address, remote key, length) to the peer's {@link #awaitRemoteRegion}.
     *
     * @param region a region of this connection ({@link #register})
     * @throws RdmaException            if the send fails
     * @throws IllegalArgumentException if the region was not registered by this connection
     * @throws ConnectionClosedException if either side closed the connection, or an earlier failure broke it
     * @throws InterruptedException  if the waiting thread is interrupted
     */
    public void advertise(MemoryRegion region) throws RdmaException, InterruptedException {
        if (region.protectionDomain() != pd) {
            throw new IllegalArgumentException(region + " is not registered with this connection: use register()");
        }
        RemoteRegion r = RemoteRegion.of(region);
        MemorySegment d = MemorySegment.ofArray(new byte[RemoteRegion.WIRE_BYTES]);
        d.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, r.address());
        d.set(ValueLayout.JAVA_INT_UNALIGNED, 8, r.remoteKey());
        d.set(ValueLayout.JAVA_LONG_UNALIGNED, 12, r.length());
        sendTagged(REGION, d, "advertise");
    }

    /**
     * The next region the peer advertised, or null if none comes within {@code timeout}. Messages that arrive
     * meanwhile are kept for {@link #receive}.
     *
     * @param timeout how long to wait
     * @return the peer's region, or {@code null}
     * @throws RdmaException if the receive fails
     * @throws ConnectionClosedException if either side closed the connection, or an earlier failure broke it
     * @throws InterruptedException  if the waiting thread is interrupted
     */
    public RemoteRegion awaitRemoteRegion(Duration timeout) throws RdmaException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        recvLock.lockInterruptibly();
        try {
            while (pendingRegions.isEmpty()) {
                if (!receiveOne(deadline, "awaitRemoteRegion")) {
                    return null;
                }
            }
            return pendingRegions.poll();
        } finally {
            recvLock.unlock();
        }
    }

    /**
     * Sends {@code message} (at most {@link ConnectionOptions#maxMessageSize()} bytes) and waits until it is
     * delivered.
     *
     * @param message the bytes; the array may be reused once this returns
     * @throws RdmaException            if the send fails (the connection is then broken)
     * @throws IllegalArgumentException if the message is longer than the maximum
     * @throws ConnectionClosedException if either side closed the connection, or an earlier failure broke it
     * @throws InterruptedException  if the waiting thread is interrupted
     */
    public void send(byte[] message) throws RdmaException, InterruptedException {
        send(MemorySegment.ofArray(message));
    }

    /**
     * Sends the bytes of {@code message} (any segment, heap or native) and waits until they are delivered.
     *
     * @param message the bytes, at most {@link ConnectionOptions#maxMessageSize()}; copied before it is sent
     * @throws RdmaException            if the send fails (the connection is then broken)
     * @throws IllegalArgumentException if the message is longer than the maximum
     * @throws ConnectionClosedException if either side closed the connection, or an earlier failure broke it
     * @throws InterruptedException  if the waiting thread is interrupted
     */
    public void send(MemorySegment message) throws RdmaException, InterruptedException {
        sendTagged(DATA, message, "send");
    }

    private void sendTagged(byte tag, MemorySegment payload, String operation)
            throws RdmaException, InterruptedException {
        if (payload.byteSize() > options.maxMessageSize()) {
            throw new IllegalArgumentException("message of " + payload.byteSize() + " bytes; this connection sends at "
                    + "most " + options.maxMessageSize() + " (ConnectionOptions.maxMessageSize)");
        }
        sendLock.lockInterruptibly();
        try {
            checkUsable(operation);
            MemorySegment staging = sendBuffer.segment();
            staging.set(ValueLayout.JAVA_BYTE, 0, tag);
            MemorySegment.copy(payload, 0, staging, 1, payload.byteSize());
            sendWr.reset().id(SEND_ID).opcode(SendOpcode.SEND).signaled(true)
                    .add(sendBuffer, 0, (int) payload.byteSize() + 1);
            postAndAwait(operation);
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * The next message from the peer, or null if none comes within {@code timeout}.
     *
     * @param timeout how long to wait
     * @return the message, or {@code null}
     * @throws RdmaException             if a receive fails, e.g. because the peer sent a message longer than this
     *     side's {@link ConnectionOptions#maxMessageSize()} (the connection is then broken)
     * @throws ConnectionClosedException if the connection closed (the peer's messages sent before are still returned)
     * @throws InterruptedException      if the waiting thread is interrupted
     */
    public byte[] receive(Duration timeout) throws RdmaException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        recvLock.lockInterruptibly();
        try {
            while (pendingMessages.isEmpty()) {
                if (!receiveOne(deadline, "receive")) {
                    return null;
                }
            }
            return pendingMessages.poll();
        } finally {
            recvLock.unlock();
        }
    }

    /**
     * Takes one completed receive into the pending queues, or drops it if it is malformed; false if none came before
     * {@code deadline}. The slot is posted again whatever the peer sent, so that no message can stall the connection.
     */
    private boolean receiveOne(long deadline, String operation) throws RdmaException, InterruptedException {
        if (!await(recvCq, recvChannel, recvWc, deadline)) {
            return false;
        }
        if (recvWc.status(0) != WcStatus.SUCCESS) {
            throw closedOrFailed(operation, recvWc.status(0));
        }
        int slot = (int) recvWc.id(0);
        try {
            // A write with immediate takes a receive too, but leaves its buffer as it was.
            if (recvWc.opcode(0) != WcOpcode.RECV
                    || !take((long) slot * (options.maxMessageSize() + 1), recvWc.byteLength(0))) {
                malformedMessages++;
            }
        } finally {
            qp.postReceive(receives[slot]);
        }
        return true;
    }

    /**
     * Queues the message of {@code bytes} bytes at {@code base} of the receive buffers: a tag, then a message or a
     * region descriptor. False if the peer sent anything else: no tag, an unknown one, or a descriptor that is not
     * one.
     */
    private boolean take(long base, int bytes) {
        if (bytes < 1) {
            return false;
        }
        MemorySegment buf = recvBuffers.segment();
        byte tag = buf.get(ValueLayout.JAVA_BYTE, base);
        if (tag == DATA) {
            pendingMessages.add(buf.asSlice(base + 1, bytes - 1).toArray(ValueLayout.JAVA_BYTE));
            return true;
        }
        if (tag != REGION || bytes != 1 + RemoteRegion.WIRE_BYTES) {
            return false;
        }
        long length = buf.get(ValueLayout.JAVA_LONG_UNALIGNED, base + 13);
        if (length <= 0) {
            return false;
        }
        pendingRegions.add(new RemoteRegion(buf.get(ValueLayout.JAVA_LONG_UNALIGNED, base + 1),
                buf.get(ValueLayout.JAVA_INT_UNALIGNED, base + 9), length));
        return true;
    }

    /**
     * How many messages from the peer were dropped as malformed: empty (no tag), of an unknown tag, a region
     * descriptor of the wrong size or with a length that is not positive, or an RDMA write with immediate data (which
     * takes a receive). Only a peer that is not an {@link RdmaConnection} sends them; each is dropped, its receive
     * posted again, and the connection goes on.
     *
     * @return the count since the connection was established
     */
    public long malformedMessages() {
        return malformedMessages;
    }

    /**
     * RDMA-writes {@code length} bytes of {@code local} at {@code localOffset} into {@code remote} at
     * {@code remoteOffset}.
     *
     * @param local        a region of this connection
     * @param localOffset  the first local byte, from the start of {@code local}
     * @param remote       a region the peer advertised with {@link Access#REMOTE_WRITE}
     * @param remoteOffset the first remote byte, from the start of {@code remote}
     * @param length       the number of bytes
     * @throws RdmaException             if the operation fails, e.g. the peer's region lacks the right (the
     *     connection is then broken)
     * @throws IllegalArgumentException  if {@code local} is not this connection's
     * @throws IndexOutOfBoundsException if a range is outside its region
     * @throws ConnectionClosedException if either side closed the connection, or an earlier failure broke it
     * @throws InterruptedException  if the waiting thread is interrupted
     */
    public void write(MemoryRegion local, long localOffset, RemoteRegion remote, long remoteOffset, int length)
            throws RdmaException, InterruptedException {
        oneSided(SendOpcode.RDMA_WRITE, local, localOffset, remote, remoteOffset, length, "write");
    }

    /**
     * RDMA-reads {@code length} bytes of {@code remote} at {@code remoteOffset} into {@code local} at
     * {@code localOffset}.
     *
     * @param local        a region of this connection (registered with {@link Access#LOCAL_WRITE})
     * @param localOffset  the first local byte, from the start of {@code local}
     * @param remote       a region the peer advertised with {@link Access#REMOTE_READ}
     * @param remoteOffset the first remote byte, from the start of {@code remote}
     * @param length       the number of bytes
     * @throws RdmaException             if the operation fails, e.g. the peer's region lacks the right (the
     *     connection is then broken)
     * @throws IllegalArgumentException  if {@code local} is not this connection's
     * @throws IndexOutOfBoundsException if a range is outside its region
     * @throws ConnectionClosedException if either side closed the connection, or an earlier failure broke it
     * @throws InterruptedException  if the waiting thread is interrupted
     */
    public void read(MemoryRegion local, long localOffset, RemoteRegion remote, long remoteOffset, int length)
            throws RdmaException, InterruptedException {
        oneSided(SendOpcode.RDMA_READ, local, localOffset, remote, remoteOffset, length, "read");
    }

    private void oneSided(SendOpcode op, MemoryRegion local, long localOffset, RemoteRegion remote, long remoteOffset,
                          int length, String operation) throws RdmaException, InterruptedException {
        if (local.protectionDomain() != pd) {
            throw new IllegalArgumentException(local + " is not registered with this connection: use register()");
        }
        remote.checkRange(remoteOffset, length);
        sendLock.lockInterruptibly();
        try {
            checkUsable(operation);
            sendWr.reset().id(SEND_ID).opcode(op).signaled(true).rdma(remote.address() + remoteOffset,
                    remote.remoteKey()).add(local, localOffset, length);
            postAndAwait(operation);
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * Atomically replaces the 8 bytes of {@code remote} at {@code remoteOffset} with {@code swap} if they equal
     * {@code expected}; returns what they were.
     *
     * @param remote       a region the peer advertised with {@link Access#REMOTE_ATOMIC}
     * @param remoteOffset the word's offset; the word must be 8-byte aligned
     * @param expected     the value to compare with
     * @param swap         the value written if equal
     * @return the word before the operation
     * @throws RdmaException            if the operation fails (the connection is then broken)
     * @throws IllegalArgumentException if the word is not 8-byte aligned
     * @throws IndexOutOfBoundsException if the word is outside the region
     * @throws ConnectionClosedException if either side closed the connection, or an earlier failure broke it
     * @throws InterruptedException  if the waiting thread is interrupted
     */
    public long compareAndSwap(RemoteRegion remote, long remoteOffset, long expected, long swap)
            throws RdmaException, InterruptedException {
        return atomic(SendOpcode.ATOMIC_CMP_AND_SWP, remote, remoteOffset, expected, swap, "compareAndSwap");
    }

    /**
     * Atomically adds {@code delta} to the 8 bytes of {@code remote} at {@code remoteOffset}; returns what they were.
     *
     * @param remote       a region the peer advertised with {@link Access#REMOTE_ATOMIC}
     * @param remoteOffset the word's offset; the word must be 8-byte aligned
     * @param delta        the value to add
     * @return the word before the addition
     * @throws RdmaException            if the operation fails (the connection is then broken)
     * @throws IllegalArgumentException if the word is not 8-byte aligned
     * @throws IndexOutOfBoundsException if the word is outside the region
     * @throws ConnectionClosedException if either side closed the connection, or an earlier failure broke it
     * @throws InterruptedException  if the waiting thread is interrupted
     */
    public long fetchAndAdd(RemoteRegion remote, long remoteOffset, long delta)
            throws RdmaException, InterruptedException {
        return atomic(SendOpcode.ATOMIC_FETCH_AND_ADD, remote, remoteOffset, delta, 0, "fetchAndAdd");
    }

    private long atomic(SendOpcode op, RemoteRegion remote, long remoteOffset, long compareAdd, long swap,
                        String operation) throws RdmaException, InterruptedException {
        remote.checkRange(remoteOffset, 8);
        if (((remote.address() + remoteOffset) & 7) != 0) {
            throw new IllegalArgumentException("atomics need an 8-byte aligned remote address, not 0x"
                    + Long.toHexString(remote.address() + remoteOffset));
        }
        sendLock.lockInterruptibly();
        try {
            checkUsable(operation);
            sendWr.reset().id(SEND_ID).opcode(op).signaled(true)
                    .atomic(remote.address() + remoteOffset, remote.remoteKey(), compareAdd, swap)
                    .add(atomicResult, 0, 8);
            postAndAwait(operation);
            return atomicResult.segment().get(ValueLayout.JAVA_LONG, 0);
        } finally {
            sendLock.unlock();
        }
    }

    private void postAndAwait(String operation) throws RdmaException, InterruptedException {
        qp.postSend(sendWr);
        // A posted request always completes: done, failed, or flushed when the connection goes down.
        await(sendCq, sendChannel, sendWc, Long.MAX_VALUE);
        if (sendWc.status(0) != WcStatus.SUCCESS) {
            throw closedOrFailed(operation, sendWc.status(0));
        }
    }

    /** Polls {@code cq} for one completion, sleeping on its channel; false if {@code deadline} passed first. */
    private static boolean await(CompletionQueue cq, CompletionChannel channel, WorkCompletions wc, long deadline)
            throws RdmaException, InterruptedException {
        while (true) {
            if (cq.poll(wc) > 0) {
                return true;
            }
            cq.requestNotification(false);
            // A completion that arrived before the request would raise no event: look again.
            if (cq.poll(wc) > 0) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            channel.await(Duration.ofNanos(Math.min(left, Duration.ofSeconds(1).toNanos())));
        }
    }

    private RdmaException closedOrFailed(String operation, WcStatus status) {
        if (status == WcStatus.WR_FLUSH_ERR || peerClosed || isClosing()) {
            return new ConnectionClosedException(operation, peerClosed ? "the peer closed the connection"
                    : isClosing() ? "the connection was closed" : "the connection is down (" + broken + ")");
        }
        broken = operation + " failed with " + status;
        return new RdmaException(operation, 0, status.name(), status.description()
                + "; the connection is broken and cannot carry more traffic");
    }

    private void checkUsable(String operation) throws ConnectionClosedException {
        checkNotClosing(operation);
        if (peerClosed) {
            throw new ConnectionClosedException(operation, "the peer closed the connection");
        }
        if (broken != null) {
            throw new ConnectionClosedException(operation, "the connection is down (" + broken + ")");
        }
    }

    private synchronized void checkNotClosing(String operation) {
        if (closing) {
            throw new IllegalStateException(operation + ": " + this + " is closed");
        }
    }

    /**
     * Closes gracefully: tells the peer (which sees the connection closed), waits briefly for its answer, and
     * releases everything the connection owns. A second call does nothing.
     */
    @Override
    public void close() throws RdmaException {
        shutDown(true);
    }

    /**
     * Closes abruptly: the queue pair is put in error at once, flushing what is in flight, and the peer is told
     * without waiting for its answer.
     *
     * @throws RdmaException if releasing a resource fails (the rest are still released)
     */
    public void abort() throws RdmaException {
        shutDown(false);
    }

    private void shutDown(boolean graceful) throws RdmaException {
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
        }
        if (!peerClosed) {
            try {
                if (!graceful) {
                    qp.toError();
                }
                id.disconnect();
            } catch (RdmaException ignored) {
                // Already down: nothing left to tell.
            }
        }
        if (graceful) {
            try {
                disconnected.await(DISCONNECT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // Whoever operates now finds the flags set and the completions flushed; wait for them to finish.
        sendLock.lock();
        recvLock.lock();
        try {
            release();
        } finally {
            recvLock.unlock();
            sendLock.unlock();
        }
    }

    /** Releases what exists, in reverse order of creation, then the id and its channel. */
    private void release() throws RdmaException {
        RdmaException first = null;
        List<AutoCloseable> all = new ArrayList<>(owned);
        all.addAll(registered);
        for (int i = all.size() - 1; i >= 0; i--) {
            first = closeCollecting(all.get(i), first);
        }
        first = closeCollecting(id, first);
        first = closeCollecting(events, first);
        arena.close();
        if (first != null) {
            throw first;
        }
    }

    private static RdmaException closeCollecting(AutoCloseable r, RdmaException first) {
        try {
            r.close();
        } catch (RdmaException e) {
            return first == null ? e : first;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return first;
    }

    private static void closeQuietly(AutoCloseable r, Exception cause) {
        if (r == null) {
            return;
        }
        try {
            r.close();
        } catch (Exception e) {
            cause.addSuppressed(e);
        }
    }

    @Override
    public String toString() {
        return "RdmaConnection[" + local + " -> " + peer + "]";
    }
}
