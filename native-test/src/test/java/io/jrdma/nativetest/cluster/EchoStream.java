package io.jrdma.nativetest.cluster;

import io.jrdma.rdmacm.RdmaConnection;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * The near end of a cross-node stream: sends pseudo-random messages over an {@link RdmaConnection} to an
 * {@link EchoTask}, checks that each comes back byte for byte, and counts what it sent.
 */
final class EchoStream {
    private final RdmaConnection connection;
    private final int messageSize;
    private final SplittableRandom random;
    private final CRC32 crc = new CRC32();
    private long bytes;

    EchoStream(RdmaConnection connection, int messageSize, long seed) {
        this.connection = connection;
        this.messageSize = messageSize;
        this.random = new SplittableRandom(seed);
    }

    /** Sends and checks messages until {@code total} bytes went both ways; sizes vary so that packets split unevenly. */
    StreamResult run(long total) throws Exception {
        while (bytes < total) {
            next((int) Math.min(total - bytes, 1 + random.nextInt(messageSize)));
        }
        return result();
    }

    /** Sends one message of {@code size} random bytes and checks its echo. */
    void next(int size) throws Exception {
        if (!exchange(size, EchoTask.PATIENCE)) {
            throw new AssertionError("no echo within " + EchoTask.PATIENCE + " after " + bytes + " bytes");
        }
    }

    /**
     * Streams until the connection fails. A missing echo is no failure here: RC learns that its peer is gone only
     * from its own requests, so when the peer dies between acknowledging a message and echoing it, nothing is in
     * flight, and the send after the missing echo is the one that finds out.
     */
    void runUntilFailure(Duration echoPatience) throws Exception {
        while (true) {
            exchange(1 + random.nextInt(messageSize), echoPatience);
        }
    }

    /** Sends {@code size} random bytes; false if no echo came within {@code patience}, else checks it byte for byte. */
    private boolean exchange(int size, Duration patience) throws Exception {
        byte[] message = new byte[size];
        random.nextBytes(message);
        connection.send(message);
        byte[] echo = connection.receive(patience);
        if (echo == null) {
            return false;
        }
        if (!Arrays.equals(message, echo)) {
            throw new AssertionError("the echo of a " + size + "-byte message after " + bytes + " bytes differs");
        }
        crc.update(message);
        bytes += size;
        return true;
    }

    StreamResult result() {
        return new StreamResult(bytes, crc.getValue());
    }
}
