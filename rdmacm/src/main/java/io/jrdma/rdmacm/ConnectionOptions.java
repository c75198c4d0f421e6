package io.jrdma.rdmacm;

/**
 * How an {@link RdmaConnection} is set up: the largest message {@link RdmaConnection#send} takes, the depths of its
 * queues, how many RDMA reads and atomics may be outstanding, private data for the peer's application, and how long
 * the transport tries before it gives up on a silent peer.
 *
 * <p>A send that gets no acknowledgement is retransmitted after the ACK timeout, {@code retryCount} times, then fails
 * with {@code RETRY_EXC_ERR} and the connection is broken: a dead peer or link is noticed after about
 * {@code (retryCount + 1) * 4.096 us * 2^ackTimeout}. With the connection manager's timeout (derived from the
 * path; on Soft-RoCE about 2 s) and 6 retries that is about 15 s.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.ConnectionSnippets region=options}
 *
 * @param maxMessageSize the largest message in bytes (1 to 16 MiB)
 * @param sendDepth      send requests outstanding at once (at least 2)
 * @param receiveDepth   messages the connection can take before the application receives them (at least 2)
 * @param readDepth      RDMA reads and atomics outstanding at once, each way (1 to 16)
 * @param privateData    bytes sent with the connect request or the accept (at most 56)
 * @param ackTimeout     this side's ACK timeout exponent (4.096 us * 2^ackTimeout, 1 to 31), or 0 for the
 *                       connection manager's
 * @param retryCount     transport retries before a send fails (0 to 7; Soft-RoCE retries forever at 7); the
 *                       connecting side's count holds for both sides
 */
public record ConnectionOptions(int maxMessageSize, int sendDepth, int receiveDepth, int readDepth,
                                byte[] privateData, int ackTimeout, int retryCount) {
    /**
     * Checks the ranges and copies the private data ({@code null} means none).
     *
     * @throws IllegalArgumentException if a value is out of the ranges above
     */
    public ConnectionOptions {
        if (maxMessageSize < 1 || maxMessageSize > 16 << 20) {
            throw new IllegalArgumentException("maxMessageSize must be 1 to 16 MiB, not " + maxMessageSize);
        }
        if (sendDepth < 2 || receiveDepth < 2) {
            throw new IllegalArgumentException("queue depths must be at least 2, not " + sendDepth + " and "
                    + receiveDepth);
        }
        if (readDepth < 1 || readDepth > 16) {
            throw new IllegalArgumentException("readDepth must be 1 to 16, not " + readDepth);
        }
        if (ackTimeout < 0 || ackTimeout > 31) {
            throw new IllegalArgumentException("ackTimeout must be 1 to 31, or 0 for the connection manager's, not "
                    + ackTimeout);
        }
        if (retryCount < 0 || retryCount > 7) {
            throw new IllegalArgumentException("retryCount must be 0 to 7, not " + retryCount);
        }
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (privateData.length > ConnectionParameters.MAX_CONNECT_DATA) {
            throw new IllegalArgumentException("private data of " + privateData.length + " bytes; a connect request "
                    + "carries at most " + ConnectionParameters.MAX_CONNECT_DATA);
        }
    }

    /**
     * 4 KiB messages, 16 sends and 16 receives in flight, 4 reads or atomics, no private data, the connection
     * manager's ACK timeout and 6 retries.
     *
     * @return the default options
     */
    public static ConnectionOptions defaults() {
        return new ConnectionOptions(4096, 16, 16, 4, null, 0, 6);
    }

    /**
     * A copy with another largest message.
     *
     * @param bytes the largest message in bytes, 1 to 16 MiB
     * @return the new options
     * @throws IllegalArgumentException if {@code bytes} is out of range
     */
    public ConnectionOptions withMaxMessageSize(int bytes) {
        return new ConnectionOptions(bytes, sendDepth, receiveDepth, readDepth, privateData, ackTimeout,
                retryCount);
    }

    /**
     * A copy with other queue depths.
     *
     * @param send    send requests outstanding at once, at least 2
     * @param receive messages buffered for the application, at least 2
     * @return the new options
     * @throws IllegalArgumentException if a depth is less than 2
     */
    public ConnectionOptions withDepths(int send, int receive) {
        return new ConnectionOptions(maxMessageSize, send, receive, readDepth, privateData, ackTimeout,
                retryCount);
    }

    /**
     * A copy with other private data.
     *
     * @param data the bytes, at most {@link ConnectionParameters#MAX_CONNECT_DATA}; {@code null} for none
     * @return the new options
     * @throws IllegalArgumentException if {@code data} is too long
     */
    public ConnectionOptions withPrivateData(byte[] data) {
        return new ConnectionOptions(maxMessageSize, sendDepth, receiveDepth, readDepth, data, ackTimeout,
                retryCount);
    }

    /**
     * A copy that gives up on a silent peer after {@code retryCount} retransmissions, each after
     * {@code 4.096 us * 2^ackTimeout}.
     *
     * @param ackTimeout the ACK timeout exponent, 1 to 31, or 0 for the connection manager's
     * @param retryCount retries, 0 to 7 (Soft-RoCE retries forever at 7)
     * @return the new options
     * @throws IllegalArgumentException if a value is out of range
     */
    public ConnectionOptions withRetries(int ackTimeout, int retryCount) {
        return new ConnectionOptions(maxMessageSize, sendDepth, receiveDepth, readDepth, privateData, ackTimeout,
                retryCount);
    }

    /**
     * The private data.
     *
     * @return a copy
     */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
