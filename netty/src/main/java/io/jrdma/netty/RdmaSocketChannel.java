package io.jrdma.netty;

import io.jrdma.endpoint.Buffer;
import io.jrdma.endpoint.BufferPool;
import io.jrdma.endpoint.ConnectRequest;
import io.jrdma.endpoint.Endpoint;
import io.jrdma.endpoint.EndpointException;
import io.jrdma.endpoint.EndpointHandler;
import io.jrdma.endpoint.GatherList;
import io.jrdma.endpoint.OperationHandler;
import io.jrdma.endpoint.ReceivedMessage;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.RdmaException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.SocketChannelConfig;
import io.netty.util.internal.StringUtil;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Netty {@link SocketChannel} over one jrdma {@link Endpoint} of its event loop's worker: for a
 * {@link io.netty.channel.MultiThreadIoEventLoopGroup} of {@link RdmaIoHandler}s, in place of
 * {@code NioSocketChannel} or {@code EpollSocketChannel}. It connects by address through the connection manager;
 * each received message is read as a {@link ByteBuf} over the receive buffer, with no copy, whose release gives the
 * peer its credit back. A flush sends the written bytes as messages of at most the worker's
 * {@link io.jrdma.endpoint.WorkerOptions#messageSize()} (give both sides the same options), or, when several of those
 * are flushed at once, as large messages of up to 1 MiB that the peer's endpoint takes by rendezvous: buffers of the
 * channel's {@link RdmaByteBufAllocator} taken on its loop from where they lie, other bytes copied into the
 * worker's registered buffer pool. A {@link FileRegion} is copied into that pool as it writes itself, a message at a
 * time. Every message takes one of the peer's credits until the peer's application releases it. When the
 * peer has no credit left, the rest waits in the channel's outbound buffer, so the channel's writability follows the
 * peer's credits through its write-buffer watermarks: a slow reader slows down its own writer only.
 *
 * <p>Half-closure: {@link #shutdownOutput()} posts, after everything already posted, a message of no bytes with an
 * immediate value, which ends the stream at the peer: the peer reads its data, then closes, or with
 * {@link io.netty.channel.ChannelOption#ALLOW_HALF_CLOSURE} fires {@link ChannelInputShutdownEvent} and may still
 * write. {@link #shutdownInput()} drops what arrives from then on; the peer is not told. A close with
 * {@link io.netty.channel.ChannelOption#SO_LINGER} 0 posts, in the same way, a message that resets the stream: the
 * peer reads what came before it, then gets a {@link SocketException} in {@code exceptionCaught} and closes, as a
 * TCP peer does on an {@code RST}.
 *
 * {@snippet class=io.jrdma.netty.snippets.NettySnippets region=echo}
 */
public final class RdmaSocketChannel extends AbstractChannel implements SocketChannel {
    private static final ChannelMetadata METADATA = new ChannelMetadata(false);
    /** Netty's connect timeout 0 means none; the connection manager's own timeouts still apply. */
    private static final Duration NO_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);
    /** The immediate value of the message of no bytes that ends a stream (the endpoints need one on such a message). */
    private static final int END_OF_STREAM = 0;
    /** The immediate value of the message of no bytes that resets a stream (a close with {@code SO_LINGER} 0). */
    private static final int RESET = 1;
    /**
     * The fewest bytes of a registered buffer that are sent from where they lie with the default 4 KiB messages:
     * below it a copy costs less than holding the memory until the send completes and a piece of its own.
     */
    static final int ZERO_COPY_MIN = 2048;
    /**
     * Flushed bytes worth one large message rather than messages of the worker's size, in those messages: a large
     * message goes by rendezvous (a round trip and two credits more), which pays once it saves a few messages' work
     * (a credit, a receive, a read through the pipeline each).
     */
    static final int LARGE_MIN_MESSAGES = 4;
    /** The largest message a flush sends. */
    static final int LARGE_MESSAGE = 1 << 20;
    /**
     * Large messages a channel has in flight at once: enough to keep a write moving while the next ones wait for the
     * peer's invitation, and few enough that a stream holds at most a few MiB of pooled memory per channel.
     */
    static final int LARGE_IN_FLIGHT = 4;

    private final Gather gather = new Gather();
    private final Pieces pieces = new Pieces();
    /** Where the bytes of the buffer last given to {@link #registered} start in its region; on the loop. */
    private long registeredOffset;
    private final Copy copy = new Copy();
    private final FileRegionCopy regionCopy = new FileRegionCopy();
    /**
     * A message copied from the file region at the head of the outbound buffer that the endpoint refused: the region
     * has moved past its bytes, so it goes first when the endpoint takes messages again. On the loop.
     */
    private Buffer regionMessage;
    /** The bytes of {@link #regionMessage}. */
    private int regionLength;
    private final LargeSent largeSent = new LargeSent();
    /** Large messages posted and not yet complete; on the loop. */
    private int largeInFlight;
    /** Bytes sent from registered buffers in place; read on the loop. */
    private long sentInPlace;
    private final RdmaSocketChannelConfig config = new RdmaSocketChannelConfig(this);
    private final ReadQueue reads = new ReadQueue(this, this::endOfInput, this::resetByPeer, this::toRead);
    private final LoopBinding binding = new LoopBinding();
    private final EndpointHandler events = new Events();
    private Endpoint endpoint;
    /** An accepted channel's connect request, until its registration accepts it (or its close rejects it). */
    private ConnectRequest request;
    private boolean open = true;
    private boolean active;
    /**
     * A send was refused for want of credits or queue slots, or waits for the endpoint to open: the outbound buffer
     * waits for the endpoint to take more.
     */
    private boolean writeRefused;
    private boolean inputShutdown;
    private boolean outputShutdown;
    /**
     * Received buffers the pipeline was handed and has not released: each holds a receive buffer, and a credit its
     * peer waits for (counted up on the loop, down wherever they are released).
     */
    private final AtomicInteger held = new AtomicInteger();
    /** Why the endpoint broke, when it did (not when it was closed in order by either side). */
    private Throwable broken;
    /** The endpoint is closed: the peer disconnected in order, and the channel closes once its reads reach that. */
    private boolean disconnected;
    private ChannelPromise connectPromise;
    private InetSocketAddress local;
    private InetSocketAddress remote;

    /** An unconnected channel, for {@code Bootstrap.channel(RdmaSocketChannel.class)}. */
    public RdmaSocketChannel() {
        super(null);
    }

    /**
     * A channel for a connect request of {@code parent}'s listener, open from the start: accepted {@code now}, on the
     * listener's worker (the parent's loop, on whose thread this runs), or deferred, to be accepted on the worker of
     * whichever loop of the device the channel is registered with.
     */
    RdmaSocketChannel(RdmaServerSocketChannel parent, ConnectRequest request, boolean now) throws RdmaException {
        super(parent);
        this.remote = request.peerAddress();
        this.local = parent.localAddress();
        this.active = true;
        if (now) {
            endpoint = request.accept(events, null);
        } else {
            request.defer();
            this.request = request;
        }
    }

    @Override
    public ServerSocketChannel parent() {
        return (ServerSocketChannel) super.parent();
    }

    @Override
    public SocketChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** The endpoint under this channel once it is connected, else null; read it on the channel's event loop. */
    Endpoint endpoint() {
        return endpoint;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    // ---- half-closure ----------------------------------------------------------------------------------------------

    @Override
    public boolean isInputShutdown() {
        return inputShutdown || !active;
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown || !active;
    }

    @Override
    public boolean isShutdown() {
        return isInputShutdown() && isOutputShutdown();
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        onLoop(() -> {
            if (!active) {   // as a socket's shutdown(2) fails
                promise.setFailure(open ? new NotYetConnectedException() : new ClosedChannelException());
                return;
            }
            inputShutdown = true;
            reads.clear();
            promise.setSuccess();
        });
        return promise;
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    /** Netty fails what is still in the outbound buffer, then {@link #doShutdownOutput()} ends the stream. */
    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        onLoop(() -> ((AbstractUnsafe) unsafe()).shutdownOutput(promise));
        return promise;
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        shutdownOutput().addListener(output -> shutdownInput().addListener(input -> {
            Throwable cause = output.cause() != null ? output.cause() : input.cause();
            if (cause == null) {
                promise.trySuccess();
            } else {
                promise.tryFailure(cause);
            }
        }));
        return promise;
    }

    private void onLoop(Runnable task) {
        if (eventLoop().inEventLoop()) {
            task.run();
        } else {
            eventLoop().execute(task);
        }
    }

    /**
     * Ends this side's stream: a message of no bytes with an immediate value, which the endpoint posts after what it
     * posted before (through its backlog if the peer has no credit now).
     */
    @Override
    protected void doShutdownOutput() throws Exception {
        if (!active) {
            throw new NotYetConnectedException();
        }
        postMark(END_OF_STREAM);
        outputShutdown = true;
    }

    /**
     * Posts a message of no bytes with the immediate value {@code mark} after what was posted before, through the
     * endpoint's backlog if the peer has no credit now. Takes its buffer from the endpoint's worker, not the loop's:
     * a close can come before the registration.
     */
    private void postMark(int mark) throws RdmaException, ClosedChannelException {
        Buffer none = null;
        try {
            none = endpoint.worker().buffers().allocate(1);
            Buffer sent = none;
            endpoint.sendWithImmediate(none.region(), none.offset(), 0, mark).whenComplete((n, failure) -> sent.close());
        } catch (IllegalStateException closing) {   // the endpoint, or its worker and pool with it
            if (none != null) {
                none.close();
            }
            throw new ClosedChannelException();
        }
    }

    /**
     * The peer reset its stream, and everything it sent before was read: an {@code exceptionCaught}, then the close,
     * as on a socket whose read meets {@code ECONNRESET}.
     */
    private void resetByPeer() {
        pipeline().fireExceptionCaught(new SocketException("Connection reset by peer"));
        if (isOpen()) {
            unsafe().close(unsafe().voidPromise());
        }
    }

    /**
     * The peer ended its stream (an end-of-stream message, or its disconnect), and everything it sent before was
     * read: a half-closure if the channel allows it, then a close once the endpoint is gone too, as a socket that
     * allows half-closure reads a FIN and learns of the rest when it writes.
     */
    private void endOfInput() {
        if (!inputShutdown && config.isAllowHalfClosure()) {
            inputShutdown = true;
            pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
        }
        if (isOpen() && (disconnected || !config.isAllowHalfClosure())) {
            unsafe().close(unsafe().voidPromise());
        }
    }

    // ---- Netty's side ----------------------------------------------------------------------------------------------

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new RdmaUnsafe();
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return LoopBinding.compatible(loop);
    }

    /**
     * Registers with the loop; an accepted channel accepts its connect request there, on the loop's worker, so that
     * its endpoint uses that loop's queues. An endpoint is its worker's: a connected channel moved to a loop of
     * another worker fails its registration.
     */
    @Override
    protected void doRegister(ChannelPromise promise) {
        binding.register(eventLoop(), (RdmaIoHandle) unsafe(), reads, promise, handler -> {
            config.workerOptions(handler.worker().options());
            if (request != null) {
                ConnectRequest r = request;
                request = null;
                endpoint = r.acceptOn(handler.worker(), events, null);
            } else if (endpoint != null && endpoint.worker() != handler.worker()) {
                throw new IllegalStateException(this + " is connected through the worker of another loop"
                        + (parent() != null ? " (accepted while its server channel did not read, it completed on the"
                        + " server's loop: with auto-read off, the server's child group is its own loop)" : ""));
            }
        });
    }

    @Override
    protected void doDeregister() {
        binding.deregister();
    }

    /**
     * Takes the loop's device address (or the wildcard) with port 0, which is where the channel connects from anyway;
     * refuses any other, which it could not connect from.
     */
    @Override
    protected void doBind(SocketAddress localAddress) {
        InetSocketAddress at = (InetSocketAddress) localAddress;
        if (!isLoopAddress(at)) {
            throw notLoopAddress(at);
        }
    }

    /** Whether the channel connects from {@code local} anyway: the loop's device (or any) address, port 0. */
    private boolean isLoopAddress(InetSocketAddress local) {
        InetAddress at = local.getAddress();
        return local.getPort() == 0
                && (at == null || at.isAnyLocalAddress() || at.equals(binding.handler().address()));
    }

    private UnsupportedOperationException notLoopAddress(SocketAddress local) {
        return new UnsupportedOperationException("an RDMA socket channel connects from its event loop's device "
                + "address " + binding.handler().address().getHostAddress()
                + " with a port the connection manager picks; it cannot bind or connect from " + local);
    }

    @Override
    protected void doDisconnect() {
        doClose();
    }

    @Override
    protected void doClose() {
        open = false;
        active = false;
        ChannelPromise p = connectPromise;
        if (p != null) {
            connectPromise = null;
            p.tryFailure(new ClosedChannelException());
        }
        reads.clear();
        if (regionMessage != null) {
            regionMessage.close();   // never posted; the outbound buffer fails its region's write
            regionMessage = null;
        }
        if (request != null) {
            ConnectRequest r = request;
            request = null;
            try {
                r.reject(null);
            } catch (RdmaException | IllegalStateException e) {
                // Rejected or gone already: the peer's connect fails either way.
            }
        }
        if (endpoint != null) {
            if (config.getSoLinger() == 0) {
                try {
                    postMark(RESET);
                } catch (IOException | UnsupportedOperationException notPosted) {
                    // The endpoint is closing or broken already (the peer learns of that instead), or the pool could
                    // not register memory for the mark (nor take a huge page for it): the close goes on in order.
                }
            }
            endpoint.close();   // what was posted still completes, then it disconnects
        }
    }

    @Override
    protected void doBeginRead() {
        reads.request();
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf || msg instanceof FileRegion) {
            return msg;
        }
        throw new UnsupportedOperationException("unsupported message type: " + StringUtil.simpleClassName(msg)
                + " (expected: ByteBuf, FileRegion)");
    }

    /**
     * Posts the flushed buffers as messages: a buffer of this loop's {@link RdmaByteBufAllocator}, or one received on
     * this loop (an echo, a proxy between two of its channels), of at least {@link #inPlaceMin} bytes is sent from
     * where it lies, holding a reference to that registered memory until the send completes; the others are copied
     * into pooled buffers. A message of the worker's size gathers both kinds (a gather list of up to the worker's
     * {@code maxGatherPieces()} pieces, each registered buffer one, each run of copied writes one), so that small
     * writes share a message with the registered ones around them.
     * A message is at most the worker's message size, or, when at least {@link #LARGE_MIN_MESSAGES} of those are
     * flushed in one registered buffer or in copied writes, one large message of up to {@link #LARGE_MESSAGE} bytes
     * (at most {@link #LARGE_IN_FLIGHT} at once).
     * A {@link FileRegion} goes in messages of its own, sized the same way, copied from the file. Stops at the first
     * message the endpoint refuses, leaving the rest for {@code onWritable}. A write's promise
     * completes once its bytes are posted.
     */
    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        int small = binding.handler().messageSize();
        while (!writeRefused && !in.isEmpty()) {
            if (in.current() instanceof FileRegion region) {
                if (!writeRegion(in, region)) {
                    return;
                }
                continue;
            }
            ByteBuf first = (ByteBuf) in.current();
            if (!first.isReadable()) {
                in.remove();   // an empty buffer
                continue;
            }
            int length;
            RegisteredBytes registered = registered(first);
            if (registered != null && first.readableBytes() >= small) {
                // A message's worth or more: messages of its own, or one large message, from where it lies.
                length = messageLength(first.readableBytes(), small);
                if (length < 0 || !postInPlace(registered, registeredOffset, length)) {
                    return;
                }
            } else {
                gather.bytes = 0;
                gather.inPlaceNext = false;
                if (registered == null) {
                    in.forEachFlushedMessage(gather);
                }
                if (registered == null && (!gather.inPlaceNext || gather.bytes >= small)) {
                    length = messageLength(Math.min(gather.bytes, LARGE_MESSAGE), small);
                    if (length < 0 || !postCopy(in, length)) {
                        return;
                    }
                } else {
                    length = postGathered(in, small);
                    if (length < 0) {
                        return;
                    }
                }
            }
            in.removeBytes(length);
        }
    }

    /**
     * The length of the next message when {@code available} bytes are ready to go, or -1 (and the channel waits) if
     * it would be a large message beyond those in flight.
     */
    private int messageLength(long available, int small) {
        if (available < (long) LARGE_MIN_MESSAGES * small) {
            return (int) Math.min(available, small);
        }
        if (largeInFlight >= LARGE_IN_FLIGHT) {
            writeRefused = true;
            return -1;
        }
        return (int) Math.min(available, LARGE_MESSAGE);
    }

    /**
     * Sends the next message's worth of {@code region}, copied into a pooled buffer (see {@link FileRegionCopy}), and
     * takes the region off the outbound buffer once it is complete: whether the channel may write on. A message the
     * endpoint refuses is kept ({@link #regionMessage}) and posted first when it takes messages again.
     */
    private boolean writeRegion(ChannelOutboundBuffer in, FileRegion region) throws Exception {
        if (regionMessage == null && region.transferred() < region.count()) {
            int length = messageLength(region.count() - region.transferred(), binding.handler().messageSize());
            if (length < 0) {
                return false;   // as many large messages in flight as a channel may have
            }
            Buffer message = pool().allocate(length);
            try {
                regionLength = regionCopy.fill(region, message.segment(), length);
            } catch (Throwable t) {
                message.close();
                throw t;
            }
            if (regionLength > 0) {
                in.progress(regionLength);
                regionMessage = message;
            } else {
                message.close();
                if (region.transferred() < region.count()) {
                    // The region moved nothing (a custom region waiting for something): as a socket transport does
                    // when a transfer moved nothing, the channel tries again later, here on its loop.
                    eventLoop().execute(((RdmaUnsafe) unsafe())::retryWrites);
                    return false;
                }
            }
        }
        if (regionMessage != null) {
            Buffer message = regionMessage;
            boolean posted;
            try {
                posted = post(message.region(), message.offset(), regionLength, null, message);
            } catch (Throwable t) {
                // The write fails, and its region with it: its bytes must not go out ahead of the next message.
                regionMessage = null;
                message.close();
                throw t;
            }
            if (!posted) {
                return false;
            }
            regionMessage = null;   // the send lets it go when it completes
        }
        if (region.transferred() >= region.count()) {
            in.remove();
        }
        return true;
    }

    /** {@return the bytes this channel sent from where they lay, with no copy} For the tests. */
    long bytesSentInPlace() {
        return sentInPlace;
    }

    /**
     * The registered memory that holds {@code buffer}'s readable bytes, if it is worth sending them from where they
     * lie ({@link #inPlace}); else null. Sets {@link #registeredOffset} to where they start in its region.
     */
    private RegisteredBytes registered(ByteBuf buffer) {
        ByteBuf root = inPlace(buffer);
        if (root == null) {
            return null;
        }
        ByteBuffer view = buffer.internalNioBuffer(buffer.readerIndex(), buffer.readableBytes());
        RegisteredBytes memory = root instanceof RegisteredByteBuf r ? r.registeredIn(view)
                : ((ReceivedByteBuf) root).registeredIn(view);
        if (memory != null) {
            registeredOffset = memory.offsetOf(view);
        }
        return memory;
    }

    /**
     * The buffer over registered memory that {@code buffer} is or wraps (a leak tracker, a slice, a duplicate), a
     * {@link RegisteredByteBuf} in this loop's pool or a {@link ReceivedByteBuf} received on this loop, if it has
     * at least {@link #inPlaceMin} bytes left; else null. Where its bytes lie now is for {@code registeredIn}
     * to tell.
     */
    private ByteBuf inPlace(ByteBuf buffer) {
        if (buffer.readableBytes() < inPlaceMin(binding.handler().messageSize()) || buffer.nioBufferCount() != 1) {
            return null;
        }
        for (ByteBuf b = buffer; b != null; b = b.unwrap()) {
            if (b instanceof RegisteredByteBuf r) {
                return r.isIn(pool()) ? r : null;
            }
            if (b instanceof ReceivedByteBuf r) {
                return r.isFrom(binding.handler().worker()) ? r : null;
            }
        }
        return null;
    }

    private BufferPool pool() {
        return binding.handler().worker().buffers();
    }

    /**
     * The fewest bytes of a registered buffer sent from where they lie, with messages of {@code messageSize} bytes:
     * {@link #ZERO_COPY_MIN}, or a sixteenth of a message if that is more, so that a full gather list fills one.
     */
    static int inPlaceMin(int messageSize) {
        return Math.max(ZERO_COPY_MIN, messageSize / GatherList.MAX_PIECES);
    }

    /**
     * Counts the flushed bytes to copy, up to a large message, and stops at a buffer after the first that goes in
     * place: if the copies come to less than a message, they share one with it ({@link #postGathered}).
     */
    private final class Gather implements ChannelOutboundBuffer.MessageProcessor {
        long bytes;
        /** It stopped at a buffer that goes in place. */
        boolean inPlaceNext;

        @Override
        public boolean processMessage(Object msg) {
            if (!(msg instanceof ByteBuf b)) {
                return false;   // a file region is a message of its own
            }
            if (bytes > 0 && inPlace(b) != null) {
                inPlaceNext = true;
                return false;
            }
            bytes += b.readableBytes();
            return bytes < LARGE_MESSAGE;
        }
    }

    /**
     * Posts one message of at most {@code small} bytes gathered from the flushed buffers: the registered ones in
     * place, the others copied into one pooled buffer, a run of consecutive copies one piece. A message of one piece
     * is posted as such. The pieces' memory is held until the send completes.
     *
     * @return the message's length, or -1 if the endpoint refused it
     */
    private int postGathered(ChannelOutboundBuffer in, int small) throws Exception {
        pieces.plan(small, binding.handler().worker().maxGatherPieces());
        in.forEachFlushedMessage(pieces);
        int length = pieces.bytes;
        if (pieces.inPlace == 0) {
            return postCopy(in, length) ? length : -1;
        }
        if (pieces.count == 1) {
            RegisteredBytes memory = registered((ByteBuf) in.current());
            return postInPlace(memory, registeredOffset, length) ? length : -1;
        }
        Buffer copies = pieces.copied > 0 ? pool().allocate(pieces.copied) : null;
        Object[] memory = new Object[pieces.inPlace + (copies != null ? 1 : 0)];
        boolean posted = false;
        try {
            if (copies != null) {
                memory[pieces.inPlace] = copies;
            }
            pieces.build(copies, memory);
            in.forEachFlushedMessage(pieces);
            pieces.endRun();
            posted = post(null, 0, length, pieces.list, memory);
            if (posted) {
                sentInPlace += length - pieces.copied;
            }
        } finally {
            pieces.done();
            if (!posted) {
                SendCompletion.INSTANCE.completed(0, memory);
            }
        }
        return posted ? length : -1;
    }

    /**
     * The pieces of one gathered message, in two walks over the flushed buffers: {@link #plan} counts them, the
     * bytes and the copies (so that one pooled buffer of the right size takes the copies), {@link #build} fills the
     * gather list, copies and retains. Both walks decide alike which buffer goes in place ({@link #registered}).
     */
    private final class Pieces implements ChannelOutboundBuffer.MessageProcessor {
        final GatherList list = new GatherList();
        private int limit;
        private int maxPieces;
        int bytes;
        int count;
        int inPlace;
        int copied;
        private boolean copying;
        /** The second walk: where the copies go (and a view of it), and the memories the send holds. */
        private Buffer copies;
        private ByteBuffer copiesView;
        private Object[] memory;
        /** Where the run of copies being made started in {@link #copies}. */
        private int runStart;

        void plan(int small, int most) {
            limit = small;
            maxPieces = Math.min(most, GatherList.MAX_PIECES);
            bytes = 0;
            count = 0;
            inPlace = 0;
            copied = 0;
            copying = false;
            copies = null;
            memory = null;
        }

        void build(Buffer copyInto, Object[] held) {
            list.clear();
            copies = copyInto;
            copiesView = copyInto == null ? null : copyInto.segment().asSlice(0, copied).asByteBuffer();
            memory = held;
            bytes = 0;
            count = 0;
            inPlace = 0;
            copied = 0;
            copying = false;
        }

        /** Adds the run of copies just made, if any, as a piece: before the next piece, or at the walk's end. */
        void endRun() {
            if (copying && copies != null) {
                list.add(copies.region(), copies.offset() + runStart, copied - runStart);
            }
            copying = false;
        }

        void done() {
            list.clear();
            copies = null;
            copiesView = null;
            memory = null;
        }

        @Override
        public boolean processMessage(Object msg) {
            if (!(msg instanceof ByteBuf b)) {
                return false;
            }
            int n = Math.min(b.readableBytes(), limit - bytes);
            if (n == 0) {
                return true;
            }
            RegisteredBytes registered = registered(b);
            if (registered != null) {
                if (count == maxPieces) {
                    return false;
                }
                if (memory != null) {
                    long offset = registeredOffset;
                    endRun();
                    registered.retain();
                    memory[inPlace] = registered;
                    list.add(registered.region(), offset, n);
                }
                count++;
                inPlace++;
                copying = false;
            } else {
                if (!copying) {
                    if (count == maxPieces) {
                        return false;
                    }
                    count++;
                    copying = true;
                    runStart = copied;
                }
                if (copies != null) {
                    b.getBytes(b.readerIndex(), copiesView.limit(copied + n).position(copied));
                }
                copied += n;
            }
            bytes += n;
            return bytes < limit;
        }
    }

    /**
     * Posts {@code length} bytes at {@code offset} of the registered memory they lie in, which the send holds until it
     * completes (the buffer may grow out of it or be released meanwhile); whether the endpoint took them.
     */
    private boolean postInPlace(RegisteredBytes memory, long offset, int length) throws Exception {
        memory.retain();
        boolean posted = false;
        try {
            posted = post(memory.region(), offset, length, null, memory);
            if (posted) {
                sentInPlace += length;
            }
        } finally {
            if (!posted) {
                memory.release();
            }
        }
        return posted;
    }

    /** Copies the first {@code length} flushed bytes into a pooled buffer and posts it. */
    private boolean postCopy(ChannelOutboundBuffer in, int length) throws Exception {
        Buffer message = pool().allocate(length);
        boolean posted = false;
        try {
            copy.into(message.segment(), length);
            in.forEachFlushedMessage(copy);
            posted = post(message.region(), message.offset(), length, null, message);
        } finally {
            copy.into(null, 0);
            if (!posted) {
                message.close();
            }
        }
        return posted;
    }

    /**
     * Copies flushed buffers from their reader index until the message is full, each with one memory copy and as
     * few objects as the buffer allows. The outbound buffer's own NIO views ({@code nioBuffers}) are not used: it makes
     * one for every flushed buffer (two objects for a slice or a duplicate, what a handler that writes the same
     * payload again writes) and caches them, with positions a gathering write would have to move on.
     */
    private static final class Copy implements ChannelOutboundBuffer.MessageProcessor {
        private MemorySegment to;
        private int length;
        private int copied;
        /** A view of the message for the buffers copied with {@code getBytes}; made at the first, once a message. */
        private ByteBuffer view;

        void into(MemorySegment message, int bytes) {
            to = message;
            length = bytes;
            copied = 0;
            view = null;
        }

        @Override
        public boolean processMessage(Object msg) {
            ByteBuf b = (ByteBuf) msg;
            int n = Math.min(b.readableBytes(), length - copied);
            if (b.unwrap() == null && b.nioBufferCount() == 1) {
                // A buffer over memory of its own keeps one NIO view, which it hands out again at no cost.
                MemorySegment.copy(MemorySegment.ofBuffer(b.internalNioBuffer(b.readerIndex(), n)), 0, to, copied, n);
            } else {
                if (view == null) {
                    view = to.asSlice(0, length).asByteBuffer();
                }
                b.getBytes(b.readerIndex(), view.limit(copied + n).position(copied));
            }
            copied += n;
            return copied < length;
        }
    }

    /**
     * Posts one message, of {@code length} bytes at {@code offset} of {@code region} or of the pieces of
     * {@code list}; whether the endpoint took it (if not, the channel stops writing until {@code onWritable}).
     * Once taken, {@code memory} (a pooled {@link Buffer}, registered memory a send holds, or an array of them) is
     * let go when the send completes; if not, the caller lets it go.
     */
    private boolean post(MemoryRegion region, long offset, int length, GatherList list, Object memory)
            throws RdmaException, ClosedChannelException {
        boolean large = length > binding.handler().messageSize();
        OperationHandler<Object> completion = large ? largeSent : SendCompletion.INSTANCE;
        try {
            if (endpoint.isOpen()) {
                boolean taken = list != null ? endpoint.trySend(list, completion, memory)
                        : endpoint.trySend(region, offset, length, completion, memory);
                writeRefused = !taken;
                if (taken && large) {
                    largeInFlight++;
                }
                return taken;
            }
            // An accepted endpoint before the peer's confirmation (which the endpoint does not announce): this
            // message waits in its backlog, the rest in the outbound buffer until this one went.
            if (large) {
                largeInFlight++;
            }
            (list != null ? endpoint.send(list) : endpoint.send(region, offset, length)).whenComplete((n, failure) -> {
                if (failure != null) {
                    completion.failed(failure, memory);
                    return;
                }
                completion.completed(n, memory);
                if (open) {
                    ((RdmaUnsafe) unsafe()).resumeWrites();
                }
            });
            writeRefused = true;
            return true;
        } catch (IllegalStateException closing) {
            throw new ClosedChannelException();
        }
    }

    /** The connect's outcome, on the loop's thread. */
    private void connected(Endpoint ep, Throwable failure) {
        ChannelPromise p = connectPromise;
        connectPromise = null;
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (p != null) {
                p.tryFailure(cause);   // the bootstrap closes the channel, as after a failed TCP connect
            }
            return;
        }
        if (!open || p == null) {
            ep.close();   // the channel closed while it connected
            return;
        }
        endpoint = ep;
        active = true;
        local = ep.localAddress();
        boolean promiseSet = p.trySuccess();
        pipeline().fireChannelActive();
        if (!promiseSet) {
            unsafe().close(unsafe().voidPromise());
        }
    }

    @Override
    public String toString() {
        return "RdmaSocketChannel[" + (endpoint != null ? endpoint : "unconnected") + ", " + remote + "]";
    }

    private final class RdmaUnsafe extends AbstractUnsafe implements RdmaIoHandle {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            if (active) {
                promise.setFailure(new AlreadyConnectedException());
                return;
            }
            if (connectPromise != null) {
                promise.setFailure(new ConnectionPendingException());
                return;
            }
            if (localAddress != null && !isLoopAddress((InetSocketAddress) localAddress)) {
                promise.setFailure(notLoopAddress(localAddress));
                return;
            }
            InetSocketAddress to = (InetSocketAddress) remoteAddress;
            remote = to;
            connectPromise = promise;
            int millis = config.getConnectTimeoutMillis();
            try {
                Duration timeout = millis > 0 ? Duration.ofMillis(millis) : NO_TIMEOUT;
                binding.handler().worker().connect(to, events, null, timeout)
                        .whenComplete(RdmaSocketChannel.this::connected);
            } catch (RuntimeException e) {
                connectPromise = null;
                promise.tryFailure(annotateConnectException(e, to));
                closeIfClosed();
            }
        }

        /** The loop shuts down. */
        @Override
        public void close() {
            close(voidPromise());
        }

        /** The endpoint takes messages again. */
        void resumeWrites() {
            writeRefused = false;
            flush0();
        }

        /** A write that moved nothing tries again, if the channel is still open. */
        void retryWrites() {
            if (open) {
                flush0();
            }
        }
    }

    /**
     * What the pipeline reads for {@code item}: a received buffer itself, while the pipeline holds fewer than half the
     * credits its peer sends with; past that, a copy in the channel's allocator, and the receive buffer (its credit)
     * goes back at once. A handler that keeps what it reads (an aggregator of a message larger than the credits'
     * worth, a queue of a slow consumer) would otherwise take every credit and stall its own peer for good. What waits
     * in the read queue, unread, is not copied: a pipeline that does not read still slows its peer down.
     */
    private Object toRead(Object item) {
        if (!(item instanceof ReceivedByteBuf received)) {
            return item;
        }
        if (held.get() < Math.max(1, binding.handler().worker().options().credits() / 2)) {
            received.hold();
            return received;
        }
        try {
            return config.getAllocator().directBuffer(received.readableBytes()).writeBytes(received);
        } finally {
            received.release();
        }
    }

    /**
     * Lets a large message's memory go once it was written, and writes on if the channel waited for it (on the
     * loop, inside the worker's progress).
     */
    private final class LargeSent implements OperationHandler<Object> {
        @Override
        public void completed(long value, Object memory) {
            failed(null, memory);
            if (writeRefused && open && endpoint.isOpen()) {
                ((RdmaUnsafe) unsafe()).resumeWrites();
            }
        }

        /** The endpoint broke: the channel closes, and only the memory matters. */
        @Override
        public void failed(Throwable failure, Object memory) {
            SendCompletion.INSTANCE.completed(0, memory);
            largeInFlight--;
        }
    }

    /** The endpoint's callbacks, on the loop's thread, inside the worker's progress. */
    private final class Events implements EndpointHandler {
        @Override
        public void onMessage(Endpoint ep, ReceivedMessage message) {
            boolean mark = message.length() == 0 && message.hasImmediate() && !message.isRemoteWrite();
            if (!open || inputShutdown || message.length() == 0) {
                boolean reset = mark && message.immediate() == RESET;
                message.release();   // a closed channel's late message, a mark, or a write's notice
                if (reset && open) {
                    reads.reset();
                } else if (mark && open) {
                    reads.end();
                }
                return;
            }
            reads.add(new ReceivedByteBuf(config.getAllocator(), message, held));
        }

        @Override
        public void onWritable(Endpoint ep) {
            if (writeRefused && open) {
                ((RdmaUnsafe) unsafe()).resumeWrites();
            }
        }

        @Override
        public void onError(Endpoint ep, Throwable failure) {
            // Told to the pipeline once the endpoint is closed, after what arrived before the failure was read.
            broken = failure;
        }

        /**
         * The peer disconnected in order, the endpoint broke, or this side closed it. An orderly disconnect is the
         * end of the stream, which the reads reach after what arrived before, as a FIN; so is one that found writes
         * of this channel unacknowledged (a write's promise completes when it is posted, as a socket's when the kernel
         * has its bytes, and a socket whose peer closes with data on the way learns of it only by a reset that comes
         * after the FIN, if it is still open). A failure is an exceptionCaught, as a reset is: what was asked for is
         * read, the rest dropped, and the channel closes.
         */
        @Override
        public void onClosed(Endpoint ep) {
            if (!open) {
                return;
            }
            disconnected = true;
            if (broken == null || broken instanceof EndpointException e && e.isPeerDisconnect()) {
                reads.end();
                return;
            }
            reads.deliver();
            pipeline().fireExceptionCaught(broken);
            unsafe().close(unsafe().voidPromise());
        }
    }
}
