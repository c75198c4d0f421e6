package io.jrdma.netty;

import io.jrdma.endpoint.WorkerOptions;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannelConfig;

import java.util.Map;

/**
 * An {@link RdmaSocketChannel}'s options: Netty's own (auto-read, allocator, watermarks, connect timeout, ...),
 * {@link ChannelOption#ALLOW_HALF_CLOSURE}, {@link ChannelOption#TCP_NODELAY}, which is always true (an endpoint
 * posts each flushed message at once), and {@link ChannelOption#SO_KEEPALIVE}, which is the worker's: its endpoints'
 * idle peers are checked after {@code WorkerOptions.keepalive} unless that is zero, so the option reads as the
 * worker does and takes only that value (grpc-netty, for one, asks every connection for it).
 * {@link ChannelOption#SO_LINGER} 0 makes a close reset the stream: the peer reads what was written before, then
 * gets a {@link java.net.SocketException} ("Connection reset by peer") in {@code exceptionCaught} where it would
 * read the end of the stream, as a TCP peer does after an {@code RST}; any other value closes in order, as without
 * it (everything written is delivered, and the close never blocks). The other socket options do not apply; their
 * setters throw, {@code setOption} refuses them.
 */
final class RdmaSocketChannelConfig extends DefaultChannelConfig implements SocketChannelConfig {
    private static final boolean DEFAULT_KEEPALIVE = !RdmaIoHandler.defaultOptions().keepalive().isZero();

    private volatile boolean allowHalfClosure;
    /** The loop's worker's keepalive once registered; before, that of the transport's default options. */
    private volatile boolean keepAlive = DEFAULT_KEEPALIVE;
    /** -1 (off) or the seconds given; only 0 changes what a close does. */
    private volatile int soLinger = -1;

    RdmaSocketChannelConfig(RdmaSocketChannel channel) {
        super(channel);
        super.setAllocator(RdmaByteBufAllocator.DEFAULT);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.TCP_NODELAY, ChannelOption.ALLOW_HALF_CLOSURE,
                ChannelOption.SO_KEEPALIVE, ChannelOption.SO_LINGER);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.TCP_NODELAY) {
            return (T) Boolean.TRUE;
        }
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(isAllowHalfClosure());
        }
        if (option == ChannelOption.SO_KEEPALIVE) {
            return (T) Boolean.valueOf(isKeepAlive());
        }
        if (option == ChannelOption.SO_LINGER) {
            return (T) Integer.valueOf(getSoLinger());
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.TCP_NODELAY) {
            setTcpNoDelay((Boolean) value);
            return true;
        }
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            setAllowHalfClosure((Boolean) value);
            return true;
        }
        if (option == ChannelOption.SO_KEEPALIVE) {
            setKeepAlive((Boolean) value);
            return true;
        }
        if (option == ChannelOption.SO_LINGER) {
            setSoLinger((Integer) value);
            return true;
        }
        return super.setOption(option, value);
    }

    @Override
    public boolean isTcpNoDelay() {
        return true;
    }

    @Override
    public SocketChannelConfig setTcpNoDelay(boolean tcpNoDelay) {
        if (!tcpNoDelay) {
            throw new UnsupportedOperationException("an RDMA endpoint sends every flushed message at once");
        }
        return this;
    }

    @Override
    public int getSoLinger() {
        return soLinger;
    }

    /** 0: a close resets the stream; below 0: off; any other value: an orderly close, as when off. */
    @Override
    public SocketChannelConfig setSoLinger(int soLinger) {
        this.soLinger = Math.max(-1, soLinger);
        return this;
    }

    @Override
    public int getSendBufferSize() {
        return 0;
    }

    @Override
    public SocketChannelConfig setSendBufferSize(int sendBufferSize) {
        throw NotApplicable.option("SO_SNDBUF");
    }

    @Override
    public int getReceiveBufferSize() {
        return 0;
    }

    @Override
    public SocketChannelConfig setReceiveBufferSize(int receiveBufferSize) {
        throw NotApplicable.option("SO_RCVBUF");
    }

    /** Whether the channel's idle peer is checked: its loop's worker's keepalive. */
    @Override
    public boolean isKeepAlive() {
        return keepAlive;
    }

    /** Takes the worker's setting only: a channel cannot have a keepalive of its own. */
    @Override
    public SocketChannelConfig setKeepAlive(boolean keepAlive) {
        if (keepAlive != this.keepAlive) {
            throw NotApplicable.option("SO_KEEPALIVE=" + keepAlive + " (the loop's worker checks idle peers "
                    + (this.keepAlive ? "" : "never ") + "as WorkerOptions.keepalive says, for all its endpoints)");
        }
        return this;
    }

    /** Registered on a loop whose worker has {@code options}. */
    void workerOptions(WorkerOptions options) {
        keepAlive = !options.keepalive().isZero();
    }

    @Override
    public int getTrafficClass() {
        return 0;
    }

    @Override
    public SocketChannelConfig setTrafficClass(int trafficClass) {
        throw NotApplicable.option("IP_TOS");
    }

    @Override
    public boolean isReuseAddress() {
        return false;
    }

    @Override
    public SocketChannelConfig setReuseAddress(boolean reuseAddress) {
        throw NotApplicable.option("SO_REUSEADDR");
    }

    @Override
    public SocketChannelConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        return this;   // a hint, which sockets may ignore too
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public SocketChannelConfig setAllowHalfClosure(boolean allowHalfClosure) {
        this.allowHalfClosure = allowHalfClosure;
        return this;
    }

    @Override
    public SocketChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    @Deprecated
    public SocketChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public SocketChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public SocketChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public SocketChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public SocketChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public SocketChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public SocketChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public SocketChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public SocketChannelConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    public SocketChannelConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }
}
