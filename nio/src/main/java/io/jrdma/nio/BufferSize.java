package io.jrdma.nio;

import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The size of each rsocket's send buffer and receive buffer. An rsocket registers both with the device when it
 * connects (an accepted one takes its listener's sizes), so they are the memory it pins: {@code 2 × size} and one
 * page per RDMA channel. Sockets made before a size was given keep librdmacm's default (128 KiB each, or what
 * {@code /etc/rdma/rsocket/mem_default} and {@code wmem_default} say).
 */
final class BufferSize {
    /** System property: the size in bytes, or with a suffix {@code k} or {@code m} (KiB, MiB). */
    static final String PROPERTY = "jrdma.nio.bufferSize";
    /** The size when none is given: librdmacm's, whatever it is. */
    static final int DEFAULT = 0;
    static final int MIN = 4096;
    static final int MAX = 1 << 30;

    private BufferSize() {
    }

    /** The size {@link #PROPERTY} gives, or {@link #DEFAULT} if it is not set. */
    static int fromProperties(Properties properties) {
        String text = properties.getProperty(PROPERTY);
        return text == null ? DEFAULT : parse(text);
    }

    /** {@code text} as a size: bytes, KiB with {@code k}, MiB with {@code m}. */
    static int parse(String text) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        int shift = s.endsWith("k") ? 10 : s.endsWith("m") ? 20 : 0;
        String digits = shift == 0 ? s : s.substring(0, s.length() - 1);
        long bytes;
        try {
            long n = Long.parseLong(digits);
            bytes = n > MAX ? n : n << shift;   // no overflow: a count too large is refused as it is
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PROPERTY + " is '" + text + "': give bytes, or KiB or MiB with a suffix k"
                    + " or m (e.g. 64k)");
        }
        return check(bytes, PROPERTY + " is '" + text + "'");
    }

    /** {@code bytes} if it is a size rsockets can have, else an exception naming {@code what}. */
    static int check(long bytes, String what) {
        if (bytes < MIN || bytes > MAX || bytes % MIN != 0) {
            throw new IllegalArgumentException(what + ": a buffer size is a multiple of 4 KiB from 4 KiB to 1 GiB "
                    + "(the memory the device pins per buffer)");
        }
        return (int) bytes;
    }

    /**
     * The options that give a new rsocket buffers of {@code size}: none for {@link #DEFAULT}. rsockets double the
     * value of {@code SO_SNDBUF} and {@code SO_RCVBUF}, as Linux does, so they get half of it.
     */
    static Map<SocketOption<?>, Object> rsocketOptions(int size) {
        return size == DEFAULT ? Map.of()
                : Map.of(StandardSocketOptions.SO_SNDBUF, size / 2, StandardSocketOptions.SO_RCVBUF, size / 2);
    }
}
