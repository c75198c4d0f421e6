package io.jrdma.endpoint;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * What two endpoints tell each other in the connection manager's private data, before the application's own bytes
 * (all big-endian): {@code u32 magic "jrE4"}, {@code u16 credits} (messages the sender of the handshake lets its
 * peer have unreleased), {@code u8 readDepth} (RDMA reads and atomics it takes at once), {@code u8} the length of
 * the application's bytes (the connection manager pads private data to a fixed size, so the length must travel),
 * {@code u32 messageSize} (its receive buffers' size), {@code u32 wordKey} and {@code u64 wordAddress}: the remote key
 * and address of the endpoint's block, whose first word the peer RDMA-writes how many messages it has released into
 * (a little-endian {@code u64}), and whose mailbox, {@code credits} entries from offset 16, the peer writes its
 * large-message entries into (see Rendezvous). The key is a memory window's over that block only, bound to the
 * endpoint's queue pair by its first request: the peer writes the block only after the endpoint's first ring (a
 * message of no bytes and no immediate value), which follows the bind.
 *
 * <p>A reject of a worker carries {@code u32 magic "jrE4"}, {@code u8} length and the application's bytes, for the
 * same reason.
 *
 * @param credits     messages the peer may send before it hears of a release
 * @param readDepth   reads and atomics this side takes at once
 * @param messageSize this side's receive buffer size
 * @param wordKey     the remote key of the window over the endpoint's block
 * @param wordAddress the credit word's address
 * @param application the application's private data
 */
record Handshake(int credits, int readDepth, int messageSize, int wordKey, long wordAddress, byte[] application) {
    static final int MAGIC = 0x6a724534;
    static final int SIZE = 24;

    static final int REJECT_HEADER = 5;

    byte[] encode() {
        return ByteBuffer.allocate(SIZE + application.length).putInt(MAGIC).putShort((short) credits)
                .put((byte) readDepth).put((byte) application.length).putInt(messageSize).putInt(wordKey)
                .putLong(wordAddress).put(application).array();
    }

    /**
     * Reads a peer's handshake.
     *
     * @return the handshake, or null if the bytes are not one (too short, another magic, values out of range)
     */
    static Handshake decode(byte[] data) {
        if (data.length < SIZE) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        if (b.getInt() != MAGIC) {
            return null;
        }
        int credits = Short.toUnsignedInt(b.getShort());
        int readDepth = Byte.toUnsignedInt(b.get());
        int length = Byte.toUnsignedInt(b.get());
        int messageSize = b.getInt();
        int key = b.getInt();
        long address = b.getLong();
        if (credits < 1 || readDepth < 1 || messageSize < 1 || address == 0 || length > data.length - SIZE) {
            return null;
        }
        return new Handshake(credits, readDepth, messageSize, key, address, Arrays.copyOfRange(data, SIZE,
                SIZE + length));
    }

    /** A worker's reject: the magic, the length and {@code application}. */
    static byte[] encodeReject(byte[] application) {
        return ByteBuffer.allocate(REJECT_HEADER + application.length).putInt(MAGIC).put((byte) application.length)
                .put(application).array();
    }

    /** The application's bytes of a worker's reject; any other reject's private data as it came. */
    static byte[] decodeReject(byte[] data) {
        if (data.length < REJECT_HEADER) {
            return data;
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        int length = b.getInt() == MAGIC ? Byte.toUnsignedInt(b.get()) : -1;
        return length < 0 || length > data.length - REJECT_HEADER ? data
                : Arrays.copyOfRange(data, REJECT_HEADER, REJECT_HEADER + length);
    }
}
