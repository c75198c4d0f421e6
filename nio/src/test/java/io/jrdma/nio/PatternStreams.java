package io.jrdma.nio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The two ends of a stream of {@link Echo#patternByte} bytes, for channels in either mode: a sender writes what the
 * channel takes, a receiver checks each byte it reads.
 */
final class PatternStreams {
    private static final int CHUNK = 64 << 10;

    private PatternStreams() {
    }

    /** Writes the pattern's bytes {@code [from, from + count)}. */
    static final class Sender {
        private final long end;
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(CHUNK).limit(0);
        private long next;

        Sender(long from, long count) {
            next = from;
            end = from + count;
        }

        /** Writes until all is sent (true) or, in non-blocking mode, the channel takes no more now (false). */
        boolean send(SocketChannel channel) throws IOException {
            while (true) {
                if (!buffer.hasRemaining()) {
                    if (next == end) {
                        return true;
                    }
                    buffer.clear().limit((int) Math.min(CHUNK, end - next));
                    Echo.fill(buffer, next);
                    next += buffer.limit();
                }
                if (channel.write(buffer) == 0) {
                    return false;
                }
            }
        }
    }

    /** Reads the pattern from {@code from} on, failing at the first wrong byte. */
    static final class Receiver {
        private final long from;
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(CHUNK);
        private long next;

        Receiver(long from) {
            this.from = from;
            next = from;
        }

        /** One read: the bytes it brought, each checked, 0 if none came, -1 at the end of the stream. */
        int receive(SocketChannel channel) throws IOException {
            int n = channel.read(buffer.clear());
            if (n > 0) {
                next = Echo.check(buffer.flip(), next);
            }
            return n;
        }

        /** Reads to the end of the stream, in blocking mode; the bytes received. */
        long receiveAll(SocketChannel channel) throws IOException {
            return receive(channel, Long.MAX_VALUE);
        }

        /** Reads, in blocking mode, until {@code count} bytes came in all (or more, if one read brings them); how many. */
        long receive(SocketChannel channel, long count) throws IOException {
            while (received() < count && receive(channel) >= 0) {
                continue;   // a blocking read waits for bytes or the end
            }
            return received();
        }

        long received() {
            return next - from;
        }
    }
}
