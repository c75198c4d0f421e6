package io.jrdma.dockertest;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * The messages of {@code jrdma stream}, written here from its documented protocol rather than taken from the tool,
 * so that the tool and the tests check each other: message {@code seq} is the 8-byte big-endian {@code seq}, then
 * byte {@code k} = {@code (7 * seq + k) % 251}; the answer is {@code seq} and the message's CRC-32; {@code -1 - N}
 * alone ends a stream of N messages.
 *
 * <pre>{@code
 * c.send(StreamMessages.message(0, 4096));
 * }</pre>
 */
final class StreamMessages {
    static final int ANSWER = 12;

    private StreamMessages() {
    }

    static byte[] message(long seq, int size) {
        byte[] m = new byte[size];
        ByteBuffer.wrap(m).putLong(seq);
        for (int k = Long.BYTES; k < size; k++) {
            m[k] = (byte) ((7 * seq + k) % 251);
        }
        return m;
    }

    static byte[] answer(long seq, byte[] received) {
        return ByteBuffer.allocate(ANSWER).putLong(seq).putInt((int) crc(received)).array();
    }

    static byte[] end(long count) {
        return ByteBuffer.allocate(Long.BYTES).putLong(-1 - count).array();
    }

    static long crc(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    /** The tool's summary of a correct stream of {@code count} messages of {@code size} bytes. */
    static String summary(long count, int size) {
        CRC32 all = new CRC32();
        for (long seq = 0; seq < count; seq++) {
            all.update(message(seq, size));
        }
        return count + " messages, " + count * size + " bytes verified, crc32 " + String.format("%08x", all.getValue());
    }
}
