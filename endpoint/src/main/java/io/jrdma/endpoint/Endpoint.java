package io.jrdma.endpoint;

import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.MemoryWindow;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.ConnectionParameters;
import io.jrdma.rdmacm.RemoteRegion;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * One reliable connection of a {@link Worker}: messages (with or without an immediate value), RDMA writes (with or
 * without immediate), reads, compare-and-swap and fetch-and-add, as many in flight as its queue pair and the
 * negotiated read depth allow. Each operation comes in two flavours:
 * <ul>
 *   <li>{@code tryX(..., handler, attachment)}: on the worker's thread only, allocation-free; it posts at once and
 *   returns {@code true}, or returns {@code false} and posts nothing when the peer has no credit left for a message
 *   or all queue slots are in use ({@link EndpointHandler#onWritable} tells when to try again). The handler runs
 *   on the worker's thread when the operation completes.</li>
 *   <li>{@code x(...)} returns a {@link CompletableFuture}: from any thread, virtual ones too; what cannot be posted
 *   yet waits in order in the endpoint's backlog ({@link #backlogSize()}).</li>
 * </ul>
 * Messages travel under credits: the receiver grants {@link WorkerOptions#credits()} receive buffers to each peer
 * and tells it, by a small RDMA write, how many it has released; a sender never sends into a full receive queue, so
 * nothing depends on RNR retries (the queue pairs have none). A message is at most the peer's
 * {@link WorkerOptions#messageSize()}.
 *
 * <p>Memory: an operation uses a range of a {@link MemoryRegion} of the worker's protection domain, e.g. a pooled
 * {@link Buffer}'s. The arguments are checked before anything is posted. A region closed while an operation on it is
 * in flight makes the operation fail (the device refuses its key), never touch freed memory.
 *
 * <p>Failures: the first operation that fails for another reason than a flush breaks the endpoint
 * ({@link EndpointHandler#onError}); its queue pair moves to the error state, every operation in flight fails with
 * {@code WR_FLUSH_ERR} and the backlog with an {@link EndpointException}. {@link #close()} lets what was started
 * finish, then disconnects; {@link #abort()} disconnects at once.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=endpoint}
 */
public final class Endpoint implements AutoCloseable {
    /** The application's private data a connect request carries, after the handshake. */
    public static final int MAX_CONNECT_DATA = ConnectionParameters.MAX_CONNECT_DATA - Handshake.SIZE;
    /** The application's private data an accept carries, after the handshake. */
    public static final int MAX_ACCEPT_DATA = ConnectionParameters.MAX_ACCEPT_DATA - Handshake.SIZE;
    /** The application's private data a reject carries. */
    public static final int MAX_REJECT_DATA = ConnectionParameters.MAX_REJECT_DATA - Handshake.REJECT_HEADER;

    private static final System.Logger LOG = System.getLogger(Endpoint.class.getName());
    static final int SEND = 0;
    static final int SEND_IMM = 1;
    static final int WRITE = 2;
    static final int WRITE_IMM = 3;
    static final int READ = 4;
    static final int CAS = 5;
    static final int FAA = 6;
    static final int CREDIT = 7;
    // The steps of a large message (see Rendezvous).
    static final int RDV_BIND = 8;
    static final int RDV_ENTRY = 9;
    static final int RDV_RING = 10;
    static final int RDV_WRITE = 11;
    static final int RDV_INVALIDATE = 12;
    // The first requests of every endpoint (see postReady).
    static final int READY_BIND = 13;
    static final int READY_RING = 14;
    /** While fewer than this many requests are in flight, every operation is signaled. */
    static final int SIGNAL_ALL_BELOW = 4;
    private static final SendOpcode[] OPCODES = {SendOpcode.SEND, SendOpcode.SEND_WITH_IMM, SendOpcode.RDMA_WRITE,
        SendOpcode.RDMA_WRITE_WITH_IMM, SendOpcode.RDMA_READ, SendOpcode.ATOMIC_CMP_AND_SWP,
        SendOpcode.ATOMIC_FETCH_AND_ADD, SendOpcode.RDMA_WRITE};
    private static final String[] NAMES = {"send", "send with immediate", "RDMA write", "RDMA write with immediate",
        "RDMA read", "compare-and-swap", "fetch-and-add", "credit update", "large message's window bind",
        "mailbox entry", "mailbox ring", "large message's write", "large message's window invalidation",
        "bind of the window over its words", "first ring"};

    enum State { CONNECTING, OPEN, CLOSING, DISCONNECTED, CLOSED }

    /** Completes the future that is its attachment: the future flavour's handler (and the tests'). */
    static final OperationHandler<CompletableFuture<Long>> FUTURE = new OperationHandler<>() {
        @Override
        public void completed(long value, CompletableFuture<Long> future) {
            future.complete(value);
        }

        @Override
        public void failed(Throwable failure, CompletableFuture<Long> future) {
            future.completeExceptionally(failure);
        }
    };

    final Worker worker;
    final int index;
    final CmId id;
    final EndpointHandler handler;
    final CompletableFuture<Endpoint> connected = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    QueuePair qp;
    volatile State state = State.CONNECTING;

    // The peer's side of the handshake.
    private int peerCredits;
    private volatile int peerMessageSize;
    /** The connection's addresses, copied at open: the id they are read from is destroyed after the close. */
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress peerAddress;
    private int readDepth;
    private long peerWordAddress;
    private int peerWordKey;
    /**
     * This endpoint's block of the worker's words (its credit word and mailbox) registered on its own, the window
     * through which the peer writes it, bound to this endpoint's queue pair only, and the key the handshake gave the
     * peer for it.
     */
    MemoryRegion wordsRegion;
    MemoryWindow wordsWindow;
    int wordsKey;
    /** The peer's first ring came: its window over its block is bound, and this side may write there. */
    private boolean peerReady;
    /** How many of this side's first requests (the bind and the ring) are in flight. */
    private int readyInFlight;

    // Operations in flight, by queue slot; the worker's thread only.
    private final int[] kinds;
    private final int[] lengths;
    private final OperationHandler<?>[] handlers;
    private final Object[] attachments;
    /** The local memory of each operation in flight, which an arena's close waits for (see RegistrationCache). */
    private final MemoryRegion[] regions;
    /**
     * The regions of each gather list's send in flight, and how many (0 for other operations); made at the first
     * such send, and then kept, so that a {@code trySend} of a list allocates nothing.
     */
    private MemoryRegion[][] pieces;
    private int[] gathered;
    private final int[] freeSlots;
    private int free;
    /**
     * The slots in flight in the order they were posted, which is the order the send queue completes them in: a
     * completion completes the unsignaled requests before it too.
     */
    private final int[] posted;
    private int postedHead;
    private int postedCount;
    private final boolean[] queued;
    private final boolean[] signaled;
    /** Signaled requests in flight: while there is one, the unsignaled ones before it complete with it. */
    private int signaledInFlight;
    /** Unsignaled requests posted since the last signaled one. */
    private int unsignaledRun;
    /** One operation in this many is signaled while the queue is busy. */
    private final int signalEvery;
    /** Whether the worker is to look at this endpoint's unsignaled requests at its next poll (coverTail). */
    private boolean tailUncovered;
    private int readsInFlight;
    private boolean creditWriteInFlight;
    /** Messages sent that took a credit. */
    private long sent;
    /** Messages of the peer's released here, and the count last written to the peer. */
    private long released;
    private long reported;
    /** Messages of the peer's that the application holds. */
    int unreleased;
    private final ArrayDeque<Pending> backlog = new ArrayDeque<>();
    final Rendezvous rendezvous;
    /** A try was refused: tell the handler once it can go on. */
    private boolean refused;
    /** While the endpoint waits for the peer's credits, the fewest any of its waiting requests needs; else 0. */
    int creditsWanted;
    long lastActivity;
    /** When a connecting endpoint gives up (System.nanoTime). */
    long connectDeadline;
    /** When it was disconnected (System.nanoTime), for the drain before its release. */
    private long disconnectedAt;
    private boolean graceful;
    /** The peer disconnected while nothing of this side's was outstanding. */
    private volatile boolean closedByPeer;
    /** The peer disconnected in order while large messages of its own were still arriving or being handed over. */
    private boolean peerGone;
    private long peerGoneAt;
    private Throwable failure;
    private volatile byte[] peerData = new byte[0];
    /** On the connecting side, the application's private data for the connect request. */
    byte[] connectData;
    /** On the accepting side, the handshake of the connect request, until the connection is established. */
    Handshake peerHandshake;

    Endpoint(Worker worker, int index, CmId id, EndpointHandler handler, int slots) {
        this.worker = worker;
        this.index = index;
        this.id = id;
        this.handler = handler;
        this.kinds = new int[slots];
        this.lengths = new int[slots];
        this.handlers = new OperationHandler<?>[slots];
        this.attachments = new Object[slots];
        this.regions = new MemoryRegion[slots];
        this.rendezvous = new Rendezvous(this, worker);
        this.freeSlots = new int[slots];
        this.posted = new int[slots];
        this.queued = new boolean[slots];
        this.signaled = new boolean[slots];
        this.signalEvery = Math.max(1, slots / 4);
        for (int i = 0; i < slots; i++) {
            freeSlots[free++] = slots - 1 - i;
        }
    }

    static byte[] privateData(byte[] data, int max) {
        byte[] copy = data == null ? new byte[0] : data.clone();
        if (copy.length > max) {
            throw new IllegalArgumentException(copy.length + " bytes of private data; at most " + max + " fit");
        }
        return copy;
    }

    /** The handshake is done: the peer's terms are known and the endpoint takes operations. */
    void open(Handshake peer, int ownReadDepth) {
        peerData = peer.application();
        peerCredits = peer.credits();
        peerMessageSize = peer.messageSize();
        localAddress = id.localAddress();
        peerAddress = id.peerAddress();
        readDepth = Math.min(ownReadDepth, peer.readDepth());
        peerWordAddress = peer.wordAddress();
        peerWordKey = peer.wordKey();
        lastActivity = System.nanoTime();
        state = State.OPEN;
        try {
            postReady();
        } catch (RdmaException | RuntimeException e) {
            abortNow(e);
            return;
        }
        connected.complete(this);
        drainBacklog();
        if (graceful) {   // closed while it connected
            state = State.CLOSING;
            maybeFinishClosing();
        }
    }

    // ---- the future flavour -------------------------------------------------------------------------------------

    /**
     * Sends {@code length} bytes of {@code region} from {@code offset} as one message. A message larger than the
     * peer's receive buffers goes by rendezvous: the peer invites it into a pooled buffer of its own, this side
     * RDMA-writes it there, and the send completes once that write is acknowledged.
     *
     * @param region the registered memory, of the worker's protection domain
     * @param offset where the message starts in it
     * @param length the message's length, 1 byte to 16 MiB
     * @return completes with {@code length} once the peer acknowledged the message
     * @throws IllegalArgumentException if the range is outside the region, the region is of another domain, or
     *                                  the length is 0 or above 16 MiB (a message of no bytes needs an immediate
     *                                  value)
     * @throws IllegalStateException    if the endpoint is closing or closed
     */
    public CompletableFuture<Long> send(MemoryRegion region, long offset, int length) {
        return submit(SEND, region, null, offset, length, null, 0, 0, 0, 0);
    }

    /**
     * Sends the pieces of {@code gather}, in order, as one message of {@link GatherList#length()} bytes: the device
     * reads each from where it lies. Otherwise as {@link #send(MemoryRegion, long, int)}, rendezvous included. The
     * list is copied before this returns.
     *
     * @param gather the pieces, of the worker's protection domain
     * @return completes with the message's length once the peer acknowledged it
     * @throws IllegalArgumentException if the list is empty, holds more pieces than {@link Worker#maxGatherPieces()},
     *                                  or a region of another domain
     * @throws IllegalStateException    if the endpoint is closing or closed
     */
    public CompletableFuture<Long> send(GatherList gather) {
        return submit(SEND, null, gather, 0, gather.length(), null, 0, 0, 0, 0);
    }

    /**
     * Sends a message with an immediate value, which the peer sees in {@link ReceivedMessage#immediate()}.
     *
     * @param region    the registered memory
     * @param offset    where the message starts
     * @param length    its length
     * @param immediate the value
     * @return completes with {@code length} once acknowledged
     * @throws IllegalArgumentException if the range is outside the region or the region is of another domain
     * @throws IllegalStateException    if the endpoint is closing or closed
     */
    public CompletableFuture<Long> sendWithImmediate(MemoryRegion region, long offset, int length, int immediate) {
        return submit(SEND_IMM, region, null, offset, length, null, 0, 0, 0, immediate);
    }

    /**
     * Writes {@code length} bytes of {@code region} into the peer's {@code remote} region at {@code remoteOffset}.
     *
     * @param region       the local memory
     * @param offset       where the data starts in it
     * @param length       its length
     * @param remote       the peer's region, as it advertised it
     * @param remoteOffset where in it
     * @return completes with {@code length} once the write is acknowledged
     * @throws IllegalArgumentException if a range is outside its region
     * @throws IllegalStateException    if the endpoint is closing or closed
     */
    public CompletableFuture<Long> write(MemoryRegion region, long offset, int length, RemoteRegion remote,
                                         long remoteOffset) {
        return submit(WRITE, region, null, offset, length, remote, remoteOffset, 0, 0, 0);
    }

    /**
     * Writes like {@link #write} and hands the peer an immediate value with it, as a message (it takes a credit).
     *
     * @param region       the local memory
     * @param offset       where the data starts in it
     * @param length       its length
     * @param remote       the peer's region
     * @param remoteOffset where in it
     * @param immediate    the value
     * @return completes with {@code length} once acknowledged
     * @throws IllegalArgumentException if a range is outside its region
     * @throws IllegalStateException    if the endpoint is closing or closed
     */
    public CompletableFuture<Long> writeWithImmediate(MemoryRegion region, long offset, int length,
                                                      RemoteRegion remote, long remoteOffset, int immediate) {
        return submit(WRITE_IMM, region, null, offset, length, remote, remoteOffset, 0, 0, immediate);
    }

    /**
     * Reads {@code length} bytes of the peer's {@code remote} region at {@code remoteOffset} into {@code region}.
     *
     * @param region       the local memory, writable ({@code LOCAL_WRITE})
     * @param offset       where the data goes in it
     * @param length       its length
     * @param remote       the peer's region
     * @param remoteOffset where in it
     * @return completes with {@code length} once the data is here
     * @throws IllegalArgumentException if a range is outside its region
     * @throws IllegalStateException    if the endpoint is closing or closed
     */
    public CompletableFuture<Long> read(MemoryRegion region, long offset, int length, RemoteRegion remote,
                                        long remoteOffset) {
        return submit(READ, region, null, offset, length, remote, remoteOffset, 0, 0, 0);
    }

    /**
     * Compares the peer's 8-byte word at {@code remoteOffset} of {@code remote} with {@code expected} and, if equal,
     * replaces it with {@code swap}, atomically.
     *
     * @param remote       the peer's region
     * @param remoteOffset where the word is, 8-byte aligned
     * @param expected     the value compared
     * @param swap         the value stored if equal
     * @return completes with the word's value before the operation
     * @throws IllegalArgumentException if the word is outside the region or not aligned
     * @throws IllegalStateException    if the endpoint is closing or closed
     */
    public CompletableFuture<Long> compareAndSwap(RemoteRegion remote, long remoteOffset, long expected, long swap) {
        return submit(CAS, null, null, 0, 8, remote, remoteOffset, expected, swap, 0);
    }

    /**
     * Adds {@code add} to the peer's 8-byte word at {@code remoteOffset} of {@code remote}, atomically.
     *
     * @param remote       the peer's region
     * @param remoteOffset where the word is, 8-byte aligned
     * @param add          the value added
     * @return completes with the word's value before the addition
     * @throws IllegalArgumentException if the word is outside the region or not aligned
     * @throws IllegalStateException    if the endpoint is closing or closed
     */
    public CompletableFuture<Long> fetchAndAdd(RemoteRegion remote, long remoteOffset, long add) {
        return submit(FAA, null, null, 0, 8, remote, remoteOffset, add, 0, 0);
    }

    // ---- the handler flavour ------------------------------------------------------------------------------------

    /**
     * {@link #send} through a handler: posts now or returns false.
     *
     * @param region     the registered memory
     * @param offset     where the message starts
     * @param length     its length
     * @param handler    runs when it completes
     * @param attachment handed to the handler
     * @param <A>        the attachment's type
     * @return whether it was posted ({@code false}: no credit or queue slot; nothing was posted)
     * @throws IllegalArgumentException if the range is outside the region or the region is of another domain
     * @throws IllegalStateException    if the endpoint is not open
     * @throws WrongThreadException     off the worker's thread
     * @throws RdmaException            if the post fails
     */
    public <A> boolean trySend(MemoryRegion region, long offset, int length, OperationHandler<? super A> handler,
                               A attachment) throws RdmaException {
        return tryPost(SEND, region, null, offset, length, null, 0, 0, 0, 0, handler, attachment);
    }

    /**
     * {@link #send(GatherList)} through a handler: posts now or returns false. Allocation-free when the message fits
     * the peer's receive buffers; the list may be filled again once this returns.
     *
     * @param gather     the pieces
     * @param handler    runs when it completes
     * @param attachment handed to the handler
     * @param <A>        the attachment's type
     * @return whether it was posted ({@code false}: no credit or queue slot; nothing was posted)
     * @throws IllegalArgumentException if the list is empty, holds more pieces than {@link Worker#maxGatherPieces()},
     *                                  or a region of another domain
     * @throws IllegalStateException    if the endpoint is not open
     * @throws WrongThreadException     off the worker's thread
     * @throws RdmaException            if the post fails
     */
    public <A> boolean trySend(GatherList gather, OperationHandler<? super A> handler, A attachment)
            throws RdmaException {
        return tryPost(SEND, null, gather, 0, gather.length(), null, 0, 0, 0, 0, handler, attachment);
    }

    /**
     * {@link #sendWithImmediate} through a handler.
     *
     * @param region     the registered memory
     * @param offset     where the message starts
     * @param length     its length
     * @param immediate  the value
     * @param handler    runs when it completes
     * @param attachment handed to the handler
     * @param <A>        the attachment's type
     * @return whether it was posted
     * @throws IllegalArgumentException if the range is outside the region or the region is of another domain
     * @throws IllegalStateException    if the endpoint is not open
     * @throws WrongThreadException     off the worker's thread
     * @throws RdmaException            if the post fails
     */
    public <A> boolean trySendWithImmediate(MemoryRegion region, long offset, int length, int immediate,
                                            OperationHandler<? super A> handler, A attachment) throws RdmaException {
        return tryPost(SEND_IMM, region, null, offset, length, null, 0, 0, 0, immediate, handler, attachment);
    }

    /**
     * {@link #write} through a handler.
     *
     * @param region       the local memory
     * @param offset       where the data starts
     * @param length       its length
     * @param remote       the peer's region
     * @param remoteOffset where in it
     * @param handler      runs when it completes
     * @param attachment   handed to the handler
     * @param <A>          the attachment's type
     * @return whether it was posted
     * @throws IllegalArgumentException if a range is outside its region
     * @throws IllegalStateException    if the endpoint is not open
     * @throws WrongThreadException     off the worker's thread
     * @throws RdmaException            if the post fails
     */
    public <A> boolean tryWrite(MemoryRegion region, long offset, int length, RemoteRegion remote, long remoteOffset,
                                OperationHandler<? super A> handler, A attachment) throws RdmaException {
        return tryPost(WRITE, region, null, offset, length, remote, remoteOffset, 0, 0, 0, handler, attachment);
    }

    /**
     * {@link #writeWithImmediate} through a handler.
     *
     * @param region       the local memory
     * @param offset       where the data starts
     * @param length       its length
     * @param remote       the peer's region
     * @param remoteOffset where in it
     * @param immediate    the value
     * @param handler      runs when it completes
     * @param attachment   handed to the handler
     * @param <A>          the attachment's type
     * @return whether it was posted
     * @throws IllegalArgumentException if a range is outside its region
     * @throws IllegalStateException    if the endpoint is not open
     * @throws WrongThreadException     off the worker's thread
     * @throws RdmaException            if the post fails
     */
    public <A> boolean tryWriteWithImmediate(MemoryRegion region, long offset, int length, RemoteRegion remote,
                                             long remoteOffset, int immediate, OperationHandler<? super A> handler,
                                             A attachment) throws RdmaException {
        return tryPost(WRITE_IMM, region, null, offset, length, remote, remoteOffset, 0, 0, immediate, handler,
                attachment);
    }

    /**
     * {@link #read} through a handler.
     *
     * @param region       the local memory
     * @param offset       where the data goes
     * @param length       its length
     * @param remote       the peer's region
     * @param remoteOffset where in it
     * @param handler      runs when it completes
     * @param attachment   handed to the handler
     * @param <A>          the attachment's type
     * @return whether it was posted ({@code false} also when the read depth is used up)
     * @throws IllegalArgumentException if a range is outside its region
     * @throws IllegalStateException    if the endpoint is not open
     * @throws WrongThreadException     off the worker's thread
     * @throws RdmaException            if the post fails
     */
    public <A> boolean tryRead(MemoryRegion region, long offset, int length, RemoteRegion remote, long remoteOffset,
                               OperationHandler<? super A> handler, A attachment) throws RdmaException {
        return tryPost(READ, region, null, offset, length, remote, remoteOffset, 0, 0, 0, handler, attachment);
    }

    /**
     * {@link #compareAndSwap} through a handler, which gets the word's previous value.
     *
     * @param remote       the peer's region
     * @param remoteOffset where the word is, 8-byte aligned
     * @param expected     the value compared
     * @param swap         the value stored if equal
     * @param handler      runs when it completes
     * @param attachment   handed to the handler
     * @param <A>          the attachment's type
     * @return whether it was posted
     * @throws IllegalArgumentException if the word is outside the region or not aligned
     * @throws IllegalStateException    if the endpoint is not open
     * @throws WrongThreadException     off the worker's thread
     * @throws RdmaException            if the post fails
     */
    public <A> boolean tryCompareAndSwap(RemoteRegion remote, long remoteOffset, long expected, long swap,
                                         OperationHandler<? super A> handler, A attachment) throws RdmaException {
        return tryPost(CAS, null, null, 0, 8, remote, remoteOffset, expected, swap, 0, handler, attachment);
    }

    /**
     * {@link #fetchAndAdd} through a handler, which gets the word's previous value.
     *
     * @param remote       the peer's region
     * @param remoteOffset where the word is, 8-byte aligned
     * @param add          the value added
     * @param handler      runs when it completes
     * @param attachment   handed to the handler
     * @param <A>          the attachment's type
     * @return whether it was posted
     * @throws IllegalArgumentException if the word is outside the region or not aligned
     * @throws IllegalStateException    if the endpoint is not open
     * @throws WrongThreadException     off the worker's thread
     * @throws RdmaException            if the post fails
     */
    public <A> boolean tryFetchAndAdd(RemoteRegion remote, long remoteOffset, long add,
                                      OperationHandler<? super A> handler, A attachment) throws RdmaException {
        return tryPost(FAA, null, null, 0, 8, remote, remoteOffset, add, 0, 0, handler, attachment);
    }

    // ---- state --------------------------------------------------------------------------------------------------

    /**
     * {@return whether a message could be posted now: open, with a credit and a queue slot}
     */
    public boolean isWritable() {
        return state == State.OPEN && free > 1 && credits() > 0;
    }

    /**
     * {@return operations waiting in the backlog for credits or queue slots}
     */
    public int backlogSize() {
        return backlog.size();
    }

    /**
     * {@return whether the endpoint is open: connected, and neither closing nor broken}
     */
    public boolean isOpen() {
        return state == State.OPEN;
    }

    /**
     * Whether the peer ended the connection while nothing of this side's was outstanding, as a socket's peer closes
     * (its process ending counts too: the connection manager disconnects for it). Such an end is not an error: the
     * handler hears {@link EndpointHandler#onClosed} alone. A disconnect that cuts operations off breaks the
     * endpoint instead ({@link EndpointHandler#onError}).
     *
     * @return whether the peer closed this endpoint
     */
    public boolean isClosedByPeer() {
        return closedByPeer;
    }

    /**
     * {@return completes when the endpoint is closed and its resources released}
     */
    public CompletableFuture<Void> closeFuture() {
        return closed;
    }

    /**
     * {@return a copy of the private data the peer's application sent with its connect request or accept (empty
     * until the endpoint is open)}
     */
    public byte[] peerPrivateData() {
        return peerData.clone();
    }

    /**
     * The peer's address and port, from the moment the endpoint opened; still there after it closed.
     *
     * @return the peer's address, or {@code null} before the endpoint opened
     */
    public InetSocketAddress peerAddress() {
        return peerAddress;
    }

    /**
     * This side's address and port on the connection (the worker's device address; on the connecting side the port
     * the connection manager chose, on the accepting side the listener's), from the moment the endpoint opened;
     * still there after it closed.
     *
     * @return the local address, or {@code null} before the endpoint opened
     */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /**
     * The largest message the peer takes in one of its receive buffers (its {@link WorkerOptions#messageSize()}):
     * a longer one goes by rendezvous, which costs a round trip more and two credits.
     *
     * @return the peer's message size in bytes, or 0 before the endpoint opened
     */
    public int peerMessageSize() {
        return peerMessageSize;
    }

    /**
     * {@return the worker the endpoint belongs to}
     */
    public Worker worker() {
        return worker;
    }

    /**
     * Closes gracefully, from any thread, without waiting: what was started or queued is posted and completes,
     * then the endpoint disconnects and releases its resources ({@link #closeFuture()}). A second call, or one after
     * the worker closed, does nothing.
     */
    @Override
    public void close() {
        if (state == State.CLOSED || worker.isClosed()) {
            return;
        }
        worker.executeUnlessClosed(() -> {
            if (state == State.OPEN || state == State.CONNECTING) {
                // An accepted endpoint is the application's before the peer confirms: what it queued then (a server's
                // greeting) is posted once the connection is up, and the endpoint closes after it (open()).
                graceful = true;
                if (state == State.OPEN) {
                    state = State.CLOSING;
                    maybeFinishClosing();
                }
            }
        });
    }

    /**
     * Disconnects at once, from any thread, without waiting: operations in flight fail with {@code WR_FLUSH_ERR},
     * the backlog with an {@link EndpointException}.
     */
    public void abort() {
        if (state == State.CLOSED || worker.isClosed()) {
            return;
        }
        worker.executeUnlessClosed(() -> abortNow(new EndpointException(this + " was aborted")));
    }

    // ---- inside the worker --------------------------------------------------------------------------------------

    private CompletableFuture<Long> submit(int kind, MemoryRegion region, GatherList gather, long offset,
                                          int length, RemoteRegion remote, long remoteOffset, long a, long b,
                                          int imm) {
        check(kind, region, gather, offset, length, remote, remoteOffset);
        State s = state;
        if (s != State.OPEN && s != State.CONNECTING) {
            throw new IllegalStateException(this + " is " + s.name().toLowerCase());
        }
        CompletableFuture<Long> future = new CompletableFuture<>();
        Pending p = new Pending(kind, region, gather == null ? null : gather.copy(), offset, length, remote,
                remoteOffset, a, b, imm, future);
        if (worker.inThread()) {
            enqueue(p);
        } else {
            worker.execute(() -> enqueue(p));
        }
        return future;
    }

    /** An operation of the future flavour, until it is posted. */
    private record Pending(int kind, MemoryRegion region, GatherList gather, long offset, int length,
                           RemoteRegion remote, long remoteOffset, long a, long b, int imm,
                           CompletableFuture<Long> future) {
    }

    private void enqueue(Pending p) {
        if (state != State.OPEN && state != State.CONNECTING) {
            p.future.completeExceptionally(closedFailure());
            return;
        }
        if (!backlog.isEmpty() || state == State.CONNECTING || !post(p)) {
            backlog.add(p);
        }
    }

    private boolean post(Pending p) {
        try {
            return post(p.kind, p.region, p.gather, p.offset, p.length, p.remote, p.remoteOffset, p.a, p.b, p.imm,
                    FUTURE, p.future);
        } catch (RdmaException | RuntimeException e) {
            p.future.completeExceptionally(e);
            return true;
        }
    }

    /**
     * Posts the large messages' reads and answers that wait, then what waits in the backlog, in order, while the
     * peer's credits and the queue slots allow.
     */
    void drainBacklog() {
        if (state == State.OPEN || state == State.CLOSING) {
            try {
                rendezvous.post();
            } catch (RdmaException | RuntimeException e) {
                fail(e);
                return;
            }
        }
        while (!backlog.isEmpty() && (state == State.OPEN || state == State.CLOSING) && post(backlog.peek())) {
            backlog.poll();
        }
        if (refused && isWritable()) {
            refused = false;
            try {
                handler.onWritable(this);
            } catch (Throwable e) {
                userCodeFailed("onWritable", e);
            }
        }
        maybeFinishClosing();
    }

    private <A> boolean tryPost(int kind, MemoryRegion region, GatherList gather, long offset, int length,
                                RemoteRegion remote, long remoteOffset, long a, long b, int imm,
                                OperationHandler<? super A> handler, A attachment) throws RdmaException {
        worker.checkThread();
        check(kind, region, gather, offset, length, remote, remoteOffset);
        if (state != State.OPEN) {
            throw new IllegalStateException(this + " is " + state.name().toLowerCase());
        }
        if (!backlog.isEmpty() || !post(kind, region, gather, offset, length, remote, remoteOffset, a, b, imm,
                handler, attachment)) {
            refused = true;
            return false;
        }
        return true;
    }

    /** The checks every operation makes before anything is posted. */
    private void check(int kind, MemoryRegion region, GatherList gather, long offset, int length,
                       RemoteRegion remote, long remoteOffset) {
        if (gather != null) {
            checkGather(gather);
        } else if (kind != CAS && kind != FAA) {
            if (region == null) {
                throw new NullPointerException("region");
            }
            if (region.protectionDomain() != worker.protectionDomain()) {
                throw new IllegalArgumentException(region + " is not of the worker's protection domain");
            }
            if (length < 0 || offset < 0 || offset > region.length() - length) {
                throw new IllegalArgumentException("[" + offset + ", +" + length + ") is outside " + region);
            }
            if ((kind == SEND || kind == SEND_IMM) && length > Rendezvous.MAX_MESSAGE) {
                throw new IllegalArgumentException("a message of " + length + " bytes; at most "
                        + Rendezvous.MAX_MESSAGE + " go by rendezvous");
            }
            if (kind == SEND && length == 0) {
                // A send of no bytes and no immediate value is the rendezvous doorbell.
                throw new IllegalArgumentException("a message of no bytes: send one with an immediate value");
            }
        }
        if (kind >= WRITE && kind <= FAA) {
            if (remote == null) {
                throw new NullPointerException("remote");
            }
            if (remoteOffset < 0 || remoteOffset > remote.length() - length) {
                throw new IllegalArgumentException("[" + remoteOffset + ", +" + length + ") is outside the peer's "
                        + remote);
            }
            if ((kind == CAS || kind == FAA) && ((remote.address() + remoteOffset) & 7) != 0) {
                throw new IllegalArgumentException("an atomic's word must be 8-byte aligned, not at "
                        + Long.toHexString(remote.address() + remoteOffset));
            }
        }
    }

    /** The checks of a gather list's send: its pieces were checked as they were added. */
    private void checkGather(GatherList gather) {
        if (gather.size() == 0) {
            throw new IllegalArgumentException("an empty gather list");
        }
        if (gather.size() > worker.maxGatherPieces()) {
            throw new IllegalArgumentException("a gather list of " + gather.size() + " pieces; the worker's queue "
                    + "pairs take at most " + worker.maxGatherPieces() + " (WorkerOptions.withGatherPieces)");
        }
        for (int i = 0; i < gather.size(); i++) {
            if (gather.regions[i].protectionDomain() != worker.protectionDomain()) {
                throw new IllegalArgumentException(gather.regions[i] + " is not of the worker's protection domain");
            }
        }
    }

    /** Whether an operation in flight or in the backlog uses {@code region}; the worker's thread. */
    boolean uses(MemoryRegion region) {
        for (int slot = 0; slot < regions.length; slot++) {
            if (regions[slot] == region || gathered != null && gathered[slot] > 0
                    && uses(pieces[slot], gathered[slot], region)) {
                return true;
            }
        }
        for (Pending p : backlog) {
            if (p.region == region || p.gather != null && p.gather.uses(region)) {
                return true;
            }
        }
        return rendezvous.uses(region);
    }

    // ---- what Rendezvous uses -----------------------------------------------------------------------------------

    int freeSlots() {
        return free;
    }

    /** The requests of this endpoint's send queue not completed yet. */
    int inFlight() {
        return freeSlots.length - free;
    }

    /** Takes a queue slot for one of the worker's own requests, which no application handler waits for. */
    int takeSlot(int kind, int length, MemoryRegion region) {
        int slot = freeSlots[--free];
        kinds[slot] = kind;
        lengths[slot] = length;
        regions[slot] = region;
        queue(slot, true);
        return slot;
    }

    /** Gives back a slot taken for a request that was not posted. */
    void releaseSlot(int slot) {
        unqueue(slot);
        release(slot);
    }

    /** {@code slot} is posted next, signaled or not; its slot is taken. */
    private void queue(int slot, boolean signal) {
        posted[(postedHead + postedCount++) % posted.length] = slot;
        queued[slot] = true;
        signaled[slot] = signal;
        if (signal) {
            signaledInFlight++;
            unsignaledRun = 0;
        } else {
            unsignaledRun++;
        }
    }

    /** Takes back {@link #queue}: the post failed. The latest entries are searched first. */
    private void unqueue(int slot) {
        for (int i = postedCount - 1; i >= 0; i--) {
            if (posted[(postedHead + i) % posted.length] == slot) {
                for (int j = i; j < postedCount - 1; j++) {
                    posted[(postedHead + j) % posted.length] = posted[(postedHead + j + 1) % posted.length];
                }
                postedCount--;
                queued[slot] = false;
                if (signaled[slot]) {
                    signaled[slot] = false;
                    signaledInFlight--;
                }
                return;
            }
        }
    }

    /**
     * Whether the next operation is signaled: while few are in flight (a request-response pattern, whose every
     * completion matters at once), when no signaled one is in flight (nothing would complete it), and one in
     * {@link #signalEvery} otherwise. Until the peer's first ring every operation is signaled: an unsignaled tail
     * is completed by a credit update ({@link #coverTail}), which must not reach the peer's block before its window
     * is bound (the peer's queue pair would refuse it and break).
     */
    private boolean signalNext() {
        return !peerReady || signaledInFlight == 0 || inFlight() < SIGNAL_ALL_BELOW
                || unsignaledRun >= signalEvery - 1;
    }

    void attach(int slot, Object attachment) {
        attachments[slot] = attachment;
    }

    void messageSent() {
        sent++;
    }

    /** Where the peer's mailbox entry for large message number {@code sequence} (1, 2, ...) is. */
    long peerMailbox(long sequence) {
        return peerWordAddress + Worker.MAILBOX + (sequence - 1) % peerCredits * Rendezvous.ENTRY;
    }

    int peerWordKey() {
        return peerWordKey;
    }

    <A> void operationCompleted(OperationHandler<A> h, long value, A attachment) {
        try {
            h.completed(value, attachment);
        } catch (Throwable t) {
            userCodeFailed("completed", t);
        }
    }

    <A> void operationFailed(OperationHandler<A> h, Throwable failure, A attachment) {
        try {
            h.failed(failure, attachment);
        } catch (Throwable t) {
            userCodeFailed("failed", t);
        }
    }

    int credits() {
        return (int) (worker.peerReleased(index) + peerCredits - sent - rendezvous.reserved());
    }

    /**
     * Posts one request, signaled; false if a credit, a queue slot or the read depth is missing. One slot is kept
     * for the credit updates, which must never wait behind the application's operations.
     */
    private boolean post(int kind, MemoryRegion region, GatherList gather, long offset, int length,
                         RemoteRegion remote, long remoteOffset, long a, long b, int imm,
                         OperationHandler<?> opHandler, Object attachment) throws RdmaException {
        if (rendezvous.waitsForEmptyQueue()) {
            if (inFlight() > 0) {
                return false;   // posted once the invitation is
            }
            rendezvous.post();
        }
        if ((kind == SEND || kind == SEND_IMM) && length > peerMessageSize) {
            if (freeSlots.length <= Rendezvous.SLOTS + 1) {
                throw new IllegalArgumentException("a message of " + length + " bytes goes by rendezvous, which needs "
                        + "a send depth of at least " + Rendezvous.SLOTS);
            }
            if (peerCredits < 2) {
                throw new IllegalArgumentException("a message of " + length + " bytes goes by rendezvous, which needs "
                        + "at least 2 credits from the peer, not " + peerCredits);
            }
            return rendezvous.send(region, gather, offset, length, kind == SEND_IMM, imm, opHandler, attachment);
        }
        boolean message = kind == SEND || kind == SEND_IMM || kind == WRITE_IMM;
        boolean readLike = kind == READ || kind == CAS || kind == FAA;
        if (free <= 1 || (readLike && readsInFlight >= readDepth)) {
            return false;
        }
        if (message && credits() <= 0) {
            worker.waitForCredits(this, 1);
            return false;
        }
        boolean signal = signalNext();
        int slot = freeSlots[--free];
        kinds[slot] = kind;
        lengths[slot] = length;
        handlers[slot] = opHandler;
        attachments[slot] = attachment;
        regions[slot] = region;
        if (gather != null) {
            hold(slot, gather);
        }
        queue(slot, signal);
        try {
            if (gather != null) {
                worker.post(this, slot, OPCODES[kind], gather, imm, signal);
            } else {
                worker.post(this, slot, OPCODES[kind], region, offset, length, remote, remoteOffset, a, b, imm,
                        signal);
            }
        } catch (RdmaException | RuntimeException e) {
            releaseSlot(slot);
            throw e;
        }
        if (message) {
            sent++;
        }
        if (readLike) {
            readsInFlight++;
        }
        return true;
    }

    /** Keeps the regions of the gather list that {@code slot} sends until it completes. */
    void hold(int slot, GatherList gather) {
        if (gathered == null) {
            gathered = new int[regions.length];
            pieces = new MemoryRegion[regions.length][];
        }
        if (pieces[slot] == null) {
            pieces[slot] = new MemoryRegion[GatherList.MAX_PIECES];
        }
        System.arraycopy(gather.regions, 0, pieces[slot], 0, gather.size());
        gathered[slot] = gather.size();
    }

    /**
     * The first requests on the queue pair, before anything the application posts: the bind of {@link #wordsWindow}
     * over this endpoint's block and a ring, which tells the peer that its writes into the block are let through
     * from now on (the bind runs before the ring, in the queue's order). It takes a credit, as every ring does.
     */
    private void postReady() throws RdmaException {
        int bind = takeSlot(READY_BIND, 0, null);
        int ring = takeSlot(READY_RING, 0, null);
        try {
            worker.postReady(this, bind, ring);
        } catch (RdmaException | RuntimeException e) {
            releaseSlot(ring);
            releaseSlot(bind);
            throw e;
        }
        messageSent();
        readyInFlight = 2;
    }

    /** Whether the peer said that it may be written: no credit update or mailbox entry goes to it before. */
    boolean peerReady() {
        return peerReady;
    }

    /** The peer's first ring came. */
    void peerIsReady() {
        peerReady = true;
    }

    /** Tells the peer how many of its messages were released, if it has not heard and no update is on its way. */
    void reportCredits() throws RdmaException {
        if (released == reported || creditWriteInFlight || free == 0 || !peerReady || state == State.DISCONNECTED
                || state == State.CONNECTING || peerGone || rendezvous.waitsForEmptyQueue()) {
            return;
        }
        postCredits();
    }

    /** The keepalive: a credit update even if nothing changed, so that a dead peer fails it. */
    void keepalive() throws RdmaException {
        if (!creditWriteInFlight && free > 0 && peerReady && (state == State.OPEN || state == State.CLOSING)
                && !peerGone && !rendezvous.waitsForEmptyQueue()) {
            postCredits();
        }
    }

    private void postCredits() throws RdmaException {
        int slot = freeSlots[--free];
        kinds[slot] = CREDIT;
        lengths[slot] = 8;
        handlers[slot] = null;
        attachments[slot] = null;
        creditWriteInFlight = true;
        reported = released;
        queue(slot, true);
        try {
            worker.postCredits(this, slot, released, peerWordAddress, peerWordKey);
        } catch (RdmaException | RuntimeException e) {
            creditWriteInFlight = false;
            releaseSlot(slot);
            throw e;
        }
    }

    boolean creditsToReport() {
        return released != reported;
    }

    /** A message of the peer's was released here: its buffer is back in the receive queue. */
    void messageReleased(int creditThreshold) throws RdmaException {
        unreleased--;
        released++;
        if (released - reported >= creditThreshold) {
            reportCredits();
        }
    }

    private static boolean uses(MemoryRegion[] pieces, int count, MemoryRegion region) {
        for (int i = 0; i < count; i++) {
            if (pieces[i] == region) {
                return true;
            }
        }
        return false;
    }

    private void release(int slot) {
        handlers[slot] = null;
        attachments[slot] = null;
        regions[slot] = null;
        if (gathered != null && gathered[slot] > 0) {
            Arrays.fill(pieces[slot], 0, gathered[slot], null);
            gathered[slot] = 0;
        }
        freeSlots[free++] = slot;
    }

    /**
     * A completion of this endpoint's send queue: it completes the unsignaled requests posted before {@code slot}
     * (successfully: an unsignaled request that fails has a completion of its own), then {@code slot}.
     */
    void completed(int slot, WcStatus status) {
        if (!queued[slot]) {
            return;   // not this endpoint's request in flight: nothing to complete
        }
        int s;
        do {
            s = posted[postedHead];
            postedHead = (postedHead + 1) % posted.length;
            postedCount--;
            queued[s] = false;
            complete(s, s == slot ? status : WcStatus.SUCCESS);
        } while (s != slot);
        if (postedCount > 0 && signaledInFlight == 0 && !tailUncovered) {
            // Only unsignaled requests are left, and no completion would come for them. The application's next
            // request is signaled (none is in flight) and completes them; if it posts none before the worker's next
            // poll, a credit update does.
            tailUncovered = true;
            worker.coverLater(this);
        }
    }

    /**
     * The worker's next poll after a completion left only unsignaled requests in flight: if the application posted
     * nothing since, a credit update (signaled, and harmless: it writes the count the peer already has or a newer
     * one) completes them. A queue pair that leaves the connected state flushes every request, signaled or not.
     */
    void coverTail() {
        tailUncovered = false;
        if (postedCount > 0 && signaledInFlight == 0 && free > 0 && (state == State.OPEN || state == State.CLOSING)
                && !peerGone) {
            try {
                postCredits();
            } catch (RdmaException e) {
                fail(e);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void complete(int slot, WcStatus status) {
        if (signaled[slot]) {
            signaled[slot] = false;
            signaledInFlight--;
        }
        int kind = kinds[slot];
        OperationHandler<Object> h = (OperationHandler<Object>) handlers[slot];
        Object attachment = attachments[slot];
        int length = lengths[slot];
        release(slot);
        lastActivity = worker.now();
        if (kind == READ || kind == CAS || kind == FAA) {
            readsInFlight--;
        }
        if (kind == CREDIT) {
            creditWriteInFlight = false;
        }
        if (kind == READY_BIND || kind == READY_RING) {
            readyInFlight--;
        }
        if (status == WcStatus.SUCCESS) {
            if (h != null) {
                operationCompleted(h, kind == CAS || kind == FAA ? worker.atomicResult(this, slot) : length,
                        attachment);
            }
        } else {
            EndpointException e = new EndpointException(NAMES[kind] + " on " + this + " failed: "
                    + status.description(), status, failure);
            if (peerGone && (kind == CREDIT || kind == RDV_INVALIDATE || kind == READY_BIND || kind == READY_RING)) {
                // The peer left in order: a credit update or the first ring posted as it left is never answered, and
                // what was queued behind it flushes once it fails. Nothing of the application's was cut off.
            } else if (status != WcStatus.WR_FLUSH_ERR) {
                fail(e);
            } else if (failure == null) {
                // Nothing here broke the endpoint, so the queue pair left the connected state by itself: as the
                // responder to a request of the peer's it refused (no error completion on this side), or fatally.
                fail(new EndpointException(this + ": its queue pair entered the error state (" + NAMES[kind]
                        + " flushed)", status, null));
            }
            if (h != null) {
                operationFailed(h, e, attachment);
            }
        }
        if (kind == RDV_WRITE) {
            rendezvous.writeCompleted((Rendezvous.Outgoing) attachment, status);
        } else if (kind == RDV_INVALIDATE) {
            rendezvous.invalidated((Rendezvous.Incoming) attachment, status);
        }
        if (state == State.OPEN || state == State.CLOSING) {
            try {
                if (released - reported >= worker.creditThreshold()) {
                    reportCredits();
                }
            } catch (RdmaException e) {
                fail(e);
            }
            drainBacklog();
        } else {
            maybeRelease();
        }
    }

    /** Breaks the endpoint: the application hears of it once, and everything in flight fails. */
    void fail(Throwable cause) {
        if (failure == null && state != State.CLOSED) {
            failure = cause;
            // An accepted endpoint is the application's from the accept on, connected or not.
            if (state == State.OPEN || state == State.CLOSING || state == State.CONNECTING && peerHandshake != null) {
                try {
                    handler.onError(this, cause);
                } catch (Throwable t) {
                    userCodeFailed("onError", t);
                }
            }
            abortNow(cause);
        }
    }

    private EndpointException closedFailure() {
        return new EndpointException(this + " is " + state.name().toLowerCase(), null, failure);
    }

    /** Disconnects now: the backlog fails, the queue pair moves to the error state and flushes what is in flight. */
    void abortNow(Throwable cause) {
        if (state == State.DISCONNECTED || state == State.CLOSED) {
            return;
        }
        boolean wasConnecting = state == State.CONNECTING;
        state = State.DISCONNECTED;
        disconnectedAt = System.nanoTime();
        if (failure == null) {
            failure = cause;
        }
        Pending p;
        while ((p = backlog.poll()) != null) {
            p.future.completeExceptionally(new EndpointException("not posted: " + this + " disconnected", null,
                    cause));
        }
        if (!wasConnecting) {
            try {
                id.disconnect();
            } catch (RdmaException | RuntimeException e) {
                // The peer may have disconnected first; the queue pair must reach the error state regardless.
                try {
                    if (qp != null) {
                        qp.toError();
                    }
                } catch (RdmaException | RuntimeException ignored) {
                    // Destroying it below flushes nothing, but no completion can come from it either.
                }
            }
        }
        rendezvous.abort(cause);
        connected.completeExceptionally(cause);
        maybeRelease();
    }

    /** A graceful close goes on once nothing is queued or in flight. */
    private void maybeFinishClosing() {
        if (state == State.CLOSING && graceful && backlog.isEmpty() && free == freeSlots.length && rendezvous.idle()) {
            abortNow(new EndpointException(this + " is closed"));
        }
    }

    /** The peer disconnected: an orderly end if nothing of this side's is cut off (a credit update does not count). */
    void peerDisconnected() {
        if (state != State.OPEN && state != State.CLOSING) {
            return;
        }
        if (rendezvous.holding()) {
            // What the peer sent waits behind a large message of its own, to be invalidated and handed over, or for
            // its "done", which the peer sent before it disconnected and which may reach the completion queue after
            // the connection manager's event: the disconnect is judged once that is over (checkPeerGone).
            if (!peerGone) {
                peerGone = true;
                peerGoneAt = worker.now();
            }
            return;
        }
        int outstanding = freeSlots.length - free - (creditWriteInFlight ? 1 : 0) - readyInFlight + backlog.size();
        boolean largeMessage = !rendezvous.sendingNothing();
        if (outstanding == 0 && !largeMessage) {
            closedByPeer = true;
            abortNow(new EndpointException(this + " was closed by its peer"));
        } else {
            fail(EndpointException.peerDisconnect(this + ": the peer disconnected with " + outstanding
                    + " operation(s)" + (largeMessage ? " and a large message" : "") + " outstanding"));
        }
    }

    /** {@return whether the peer disconnected in order and this side still hands over what it sent} */
    boolean peerGone() {
        return peerGone;
    }

    /**
     * After the peer's orderly disconnect: ends the endpoint in order once what the peer sent was handed over, or
     * breaks it if a large message of the peer's still waits for the peer after {@link Worker#DRAIN} and with the
     * completion queue drained ({@link Worker#drainCompletions()}). What is left
     * of this side's own work (invalidations, hand-overs) is waited for without a deadline.
     */
    void checkPeerGone() {
        if (!peerGone) {
            return;
        }
        if (!rendezvous.holding()) {
            peerGone = false;
            peerDisconnected();
        } else if (rendezvous.awaitingPeer() && worker.now() - peerGoneAt >= Worker.DRAIN) {
            // The peer's "done" may still wait in the completion queue; taking it may end the wait (and this look).
            if (worker.drainCompletions() && peerGone && rendezvous.awaitingPeer()) {
                peerGone = false;
                fail(new EndpointException(this + ": the peer disconnected with a large message outstanding"));
            }
        }
    }

    /**
     * Releases the endpoint once it is disconnected, nothing of it is in flight, and {@link Worker#DRAIN} has passed
     * since it was disconnected, with the completion queue drained ({@link Worker#drainCompletions()}): a message the
     * peer sent before its disconnect (acknowledged, so the peer counts it delivered) may still wait in the shared
     * completion queue when the connection manager's {@code DISCONNECTED} is handled, and the endpoint must still be
     * known by its queue pair then to hand it over.
     */
    void maybeRelease() {
        if (!releasable() || !worker.drainCompletions() || !releasable()) {
            return;   // a drain running further up: a later look releases it
        }
        state = State.CLOSED;
        worker.releaseEndpoint(this);
        closed.complete(null);
        try {
            handler.onClosed(this);
        } catch (Throwable t) {
            userCodeFailed("onClosed", t);
        }
    }

    private boolean releasable() {
        return state == State.DISCONNECTED && free == freeSlots.length
                && System.nanoTime() - disconnectedAt >= Worker.DRAIN;
    }

    /** The application's callbacks run inside the worker: whatever they throw, the worker and its state go on. */
    private void userCodeFailed(String callback, Throwable failure) {
        LOG.log(System.Logger.Level.WARNING, callback + " of " + this + " threw", failure);
    }

    @Override
    public String toString() {
        return "Endpoint[" + index + (qp != null ? ", qp " + qp.qpNumber() : "") + ", " + state + "]";
    }
}
