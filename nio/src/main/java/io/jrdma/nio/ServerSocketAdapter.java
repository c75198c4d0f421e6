package io.jrdma.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * The {@link ServerSocket} view of a {@link ServerSocketChannelImpl} ({@code channel.socket()}): bind, accept,
 * addresses, state, options and close go to the channel. The JDK socket implementation its superclass makes is never
 * used, so it never opens a descriptor. {@code SO_TIMEOUT} is kept but does not bound {@link #accept()}.
 */
final class ServerSocketAdapter extends ServerSocket {
    private final ServerSocketChannelImpl channel;
    private volatile int timeout;

    ServerSocketAdapter(ServerSocketChannelImpl channel) throws IOException {
        this.channel = channel;
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        bind(local, 0);
    }

    @Override
    public void bind(SocketAddress local, int backlog) throws IOException {
        channel.bind(local, backlog);
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress local = channel.local();
        return local == null ? null : local.getAddress();
    }

    @Override
    public int getLocalPort() {
        InetSocketAddress local = channel.local();
        return local == null ? -1 : local.getPort();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return channel.local();
    }

    @Override
    public Socket accept() throws IOException {
        if (!channel.isBlocking()) {
            throw new IllegalBlockingModeException();
        }
        SocketChannel accepted = channel.accept();
        return accepted.socket();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public ServerSocketChannel getChannel() {
        return channel;
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
    public void setReuseAddress(boolean on) throws SocketException {
        AdapterOptions.set(channel, StandardSocketOptions.SO_REUSEADDR, on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return AdapterOptions.get(channel, StandardSocketOptions.SO_REUSEADDR);
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
    public <T> ServerSocket setOption(SocketOption<T> name, T value) throws IOException {
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
        return "ServerSocketAdapter[" + channel + "]";
    }
}
