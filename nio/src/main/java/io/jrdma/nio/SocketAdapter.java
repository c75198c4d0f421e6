package io.jrdma.nio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.Channels;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * The {@link Socket} view of a {@link SocketChannelImpl} ({@code channel.socket()}), as libraries that configure a
 * channel through its socket need it: addresses, state, shutdowns, options and close go to the channel, and the
 * streams read and write it in blocking mode. It has no {@link SocketImpl} of its own. Not supported: connect
 * timeouts, {@code SO_LINGER}, {@code IP_TOS} and urgent data (a {@link SocketException}); {@code SO_TIMEOUT} is
 * kept but does not bound the streams' reads.
 */
final class SocketAdapter extends Socket {
    private final SocketChannelImpl channel;
    private volatile int timeout;

    SocketAdapter(SocketChannelImpl channel) throws SocketException {
        super((SocketImpl) null);
        this.channel = channel;
    }

    @Override
    public void connect(SocketAddress remote) throws IOException {
        connect(remote, 0);
    }

    @Override
    public void connect(SocketAddress remote, int timeoutMillis) throws IOException {
        if (remote == null) {
            throw new IllegalArgumentException("connect: the address can't be null");
        }
        if (timeoutMillis != 0) {
            throw new SocketException("connect timeouts are not supported");
        }
        if (!channel.isBlocking()) {
            throw new IllegalBlockingModeException();
        }
        channel.connect(remote);
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        channel.bind(local);
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress remote = channel.remote();
        return remote == null ? null : remote.getAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        InetSocketAddress local = channel.local();
        return local == null ? new InetSocketAddress(0).getAddress() : local.getAddress();
    }

    @Override
    public int getPort() {
        InetSocketAddress remote = channel.remote();
        return remote == null ? 0 : remote.getPort();
    }

    @Override
    public int getLocalPort() {
        InetSocketAddress local = channel.local();
        return local == null ? -1 : local.getPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return channel.remote();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return channel.local();
    }

    @Override
    public SocketChannel getChannel() {
        return channel;
    }

    @Override
    public InputStream getInputStream() throws IOException {
        ensureUsable();
        if (channel.isInputShutdown()) {
            throw new SocketException("socket input is shut down");
        }
        return Channels.newInputStream(channel);
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        ensureUsable();
        if (channel.isOutputShutdown()) {
            throw new SocketException("socket output is shut down");
        }
        return Channels.newOutputStream(channel);
    }

    private void ensureUsable() throws SocketException {
        if (!channel.isOpen()) {
            throw new SocketException("socket is closed");
        }
        if (!channel.isConnected()) {
            throw new SocketException("socket is not connected");
        }
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        AdapterOptions.set(channel, StandardSocketOptions.TCP_NODELAY, on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return AdapterOptions.get(channel, StandardSocketOptions.TCP_NODELAY);
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        throw new SocketException("SO_LINGER is not supported");
    }

    /** -1: lingering is off, and cannot be switched on. */
    @Override
    public int getSoLinger() {
        return -1;
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        throw new SocketException("urgent data is not supported");
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        throw new SocketException("urgent data is not supported");
    }

    @Override
    public boolean getOOBInline() {
        return false;
    }

    @Override
    public void setSoTimeout(int timeoutMillis) throws SocketException {
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("timeout < 0");
        }
        timeout = timeoutMillis;
    }

    @Override
    public int getSoTimeout() {
        return timeout;
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        AdapterOptions.set(channel, StandardSocketOptions.SO_SNDBUF, AdapterOptions.positive(size));
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return AdapterOptions.get(channel, StandardSocketOptions.SO_SNDBUF);
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        AdapterOptions.set(channel, StandardSocketOptions.SO_RCVBUF, AdapterOptions.positive(size));
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return AdapterOptions.get(channel, StandardSocketOptions.SO_RCVBUF);
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        AdapterOptions.set(channel, StandardSocketOptions.SO_KEEPALIVE, on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return AdapterOptions.get(channel, StandardSocketOptions.SO_KEEPALIVE);
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        throw new SocketException("IP_TOS is not supported");
    }

    /** 0: the traffic class cannot be set. */
    @Override
    public int getTrafficClass() {
        return 0;
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        AdapterOptions.set(channel, StandardSocketOptions.SO_REUSEADDR, on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return AdapterOptions.get(channel, StandardSocketOptions.SO_REUSEADDR);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public void shutdownInput() throws IOException {
        channel.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        channel.shutdownOutput();
    }

    @Override
    public boolean isConnected() {
        return channel.isConnected();
    }

    @Override
    public boolean isBound() {
        return channel.local() != null;
    }

    @Override
    public boolean isClosed() {
        return !channel.isOpen();
    }

    @Override
    public boolean isInputShutdown() {
        return channel.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return channel.isOutputShutdown();
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        channel.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return channel.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return channel.supportedOptions();
    }

    @Override
    public String toString() {
        return "SocketAdapter[" + channel + "]";
    }
}
