package io.jrdma.nio;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.channels.NetworkChannel;

/** Options through a channel for its {@code java.net} adapters, whose methods throw {@link SocketException}. */
final class AdapterOptions {
    private AdapterOptions() {
    }

    static <T> void set(NetworkChannel channel, SocketOption<T> option, T value) throws SocketException {
        try {
            channel.setOption(option, value);
        } catch (SocketException e) {
            throw e;
        } catch (IOException e) {
            throw asSocketException(e);
        }
    }

    static <T> T get(NetworkChannel channel, SocketOption<T> option) throws SocketException {
        try {
            return channel.getOption(option);
        } catch (SocketException e) {
            throw e;
        } catch (IOException e) {
            throw asSocketException(e);
        }
    }

    /** {@code size} if it is positive, as the adapters' buffer size setters require. */
    static int positive(int size) {
        if (size <= 0) {
            throw new IllegalArgumentException("buffer size must be positive: " + size);
        }
        return size;
    }

    private static SocketException asSocketException(IOException e) {
        return new SocketException(e.getMessage(), e);
    }
}
