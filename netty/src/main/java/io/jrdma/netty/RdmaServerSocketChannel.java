package io.jrdma.netty;

import io.jrdma.endpoint.ConnectRequest;
import io.jrdma.endpoint.EndpointListener;
import io.jrdma.endpoint.Worker;
import io.jrdma.ibverbs.RdmaException;
import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.ServerSocketChannelConfig;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.UnaryOperator;

/**
 * A Netty {@link ServerSocketChannel} over a jrdma {@link EndpointListener} of its event loop's worker: it binds to
 * an address of the loop's RDMA device (a wildcard address means the device's) and reads each accepted connection
 * as an {@link RdmaSocketChannel}.
 *
 * <p>While the server channel reads (auto-read, or a {@code read()} pending), each connect request is deferred to
 * the accepted channel, which accepts it on the worker of the loop it is registered with:
 * {@code ServerBootstrap.group(boss, workers)} spreads the connections over the workers' loops, which must be on
 * the server's device. While it does not read, a request is accepted at once on the server's own loop, as a TCP
 * backlog completes connections nobody accepted yet, and its channel can only be registered with that loop.
 *
 * {@snippet class=io.jrdma.netty.snippets.NettySnippets region=echo}
 */
public final class RdmaServerSocketChannel extends AbstractServerChannel implements ServerSocketChannel {
    private final RdmaServerSocketChannelConfig config = new RdmaServerSocketChannelConfig(this);
    /** Accepted channels; a listener's stream has no end. */
    private final ReadQueue reads = new ReadQueue(this, () -> { }, () -> { }, UnaryOperator.identity());
    private final LoopBinding binding = new LoopBinding();
    private EndpointListener listener;
    private boolean open = true;

    /** An unbound channel, for {@code ServerBootstrap.channel(RdmaServerSocketChannel.class)}. */
    public RdmaServerSocketChannel() {
    }

    @Override
    public ServerSocketChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && listener != null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return null;
    }

    @Override
    protected SocketAddress localAddress0() {
        return listener != null ? listener.localAddress() : null;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return LoopBinding.compatible(loop);
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new ServerUnsafe();
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        binding.register(eventLoop(), (RdmaIoHandle) unsafe(), reads, promise, handler -> { });
    }

    @Override
    protected void doDeregister() {
        binding.deregister();
    }

    /**
     * Listens. The worker binds on its own thread, which is this one: it is progressed here until it did, so that
     * the channel is bound when Netty fires it active, as a TCP server channel is.
     */
    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        RdmaIoHandler handler = binding.handler();
        InetSocketAddress at = (InetSocketAddress) localAddress;
        if (at.getAddress() == null || at.getAddress().isAnyLocalAddress()) {
            at = new InetSocketAddress(handler.address(), at.getPort());
        }
        Worker worker = handler.worker();
        CompletableFuture<EndpointListener> listening = worker.listen(at, config.getBacklog(), this::connectRequest);
        while (!listening.isDone()) {
            worker.progress();
        }
        try {
            listener = listening.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private void connectRequest(ConnectRequest request) throws RdmaException {
        if (!open) {
            request.reject(null);
            return;
        }
        // While the channel reads, the child is read at once and accepted by the worker of whichever loop it is
        // registered with (ServerBootstrap's child group). While it does not, the connection completes now, on this
        // loop's worker, as a TCP backlog completes connections that nobody has accepted yet.
        boolean reading = config.isAutoRead() || reads.requested();
        reads.add(new RdmaSocketChannel(this, request, !reading));
    }

    @Override
    protected void doClose() {
        open = false;
        if (listener != null) {
            listener.close();
        }
        reads.clear();
    }

    @Override
    protected void doBeginRead() {
        reads.request();
    }

    @Override
    public String toString() {
        return "RdmaServerSocketChannel[" + (listener != null ? listener.localAddress() : "unbound") + "]";
    }

    private final class ServerUnsafe extends AbstractUnsafe implements RdmaIoHandle {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            promise.setFailure(new UnsupportedOperationException("a server channel does not connect"));
        }

        /** The loop shuts down. */
        @Override
        public void close() {
            close(voidPromise());
        }
    }
}
