package io.jrdma.ibverbs;

import java.util.Objects;

/**
 * How {@link QueuePair#connect} brings a queue pair to RTS: the local port and GID, the path MTU, and the RC
 * timers and limits. Defaults follow {@code ibv_rc_pingpong}.
 *
 * <pre>{@code
 * qp.connect(peer, ConnectOptions.of(1, 1, Mtu.MTU_1024).maxReadAtomic(4).retryCount(7));
 * }</pre>
 */
public final class ConnectOptions {
    private final int port;
    private final int gidIndex;
    private final Mtu mtu;
    private int maxReadAtomic = 1;
    private int minRnrTimer = 12;
    private int timeout = 14;
    private int retryCount = 6;
    private int rnrRetry = 7;
    private int serviceLevel;
    private int accessFlags = Access.LOCAL_WRITE.mask() | Access.REMOTE_READ.mask() | Access.REMOTE_WRITE.mask()
            | Access.REMOTE_ATOMIC.mask();

    private ConnectOptions(int port, int gidIndex, Mtu mtu) {
        if (port < 1 || port > 255) {
            throw new IllegalArgumentException("port numbers run from 1 to 255, not " + port);
        }
        if (gidIndex < -1 || gidIndex > 255) {
            throw new IllegalArgumentException("GID index must be -1 (no GRH) to 255, not " + gidIndex);
        }
        this.port = port;
        this.gidIndex = gidIndex;
        this.mtu = Objects.requireNonNull(mtu, "mtu");
    }

    /**
     * @param port     local port, from 1
     * @param gidIndex local GID index for a GRH (required on RoCE), or -1 to route by LID only
     * @param mtu      path MTU, at most the active MTU of both ports
     */
    public static ConnectOptions of(int port, int gidIndex, Mtu mtu) {
        return new ConnectOptions(port, gidIndex, mtu);
    }

    /** Outstanding RDMA READs/atomics, both as initiator and as responder (default 1). */
    public ConnectOptions maxReadAtomic(int n) {
        this.maxReadAtomic = range("maxReadAtomic", n, 0, 255);
        return this;
    }

    /** RNR NAK timer code, 0..31 (default 12 = 0.64 ms). */
    public ConnectOptions minRnrTimer(int code) {
        this.minRnrTimer = range("minRnrTimer", code, 0, 31);
        return this;
    }

    /** Local ACK timeout code, 0..31: 4.096 µs * 2^code (default 14 ≈ 67 ms). */
    public ConnectOptions timeout(int code) {
        this.timeout = range("timeout", code, 0, 31);
        return this;
    }

    /**
     * Retries on timeout, 0..7. The default is 6, not 7: Soft-RoCE takes 7 for "forever", and a send to a peer that
     * died would then never fail.
     */
    public ConnectOptions retryCount(int n) {
        this.retryCount = range("retryCount", n, 0, 7);
        return this;
    }

    /** Retries on RNR NAK, 0..7, 7 = forever (default 7). */
    public ConnectOptions rnrRetry(int n) {
        this.rnrRetry = range("rnrRetry", n, 0, 7);
        return this;
    }

    /** Service level, 0..15 (default 0). */
    public ConnectOptions serviceLevel(int sl) {
        this.serviceLevel = range("serviceLevel", sl, 0, 15);
        return this;
    }

    /** What the peer may do to this QP's memory (default: remote read, write and atomics). */
    public ConnectOptions remoteAccess(Access... access) {
        this.accessFlags = Access.maskOf(Access.setOf(access));
        return this;
    }

    int port() {
        return port;
    }

    int gidIndex() {
        return gidIndex;
    }

    Mtu mtu() {
        return mtu;
    }

    int maxReadAtomic() {
        return maxReadAtomic;
    }

    int minRnrTimer() {
        return minRnrTimer;
    }

    int timeout() {
        return timeout;
    }

    int retryCount() {
        return retryCount;
    }

    int rnrRetry() {
        return rnrRetry;
    }

    int serviceLevel() {
        return serviceLevel;
    }

    int accessFlags() {
        return accessFlags;
    }

    private static int range(String what, int v, int min, int max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(what + " must be in [" + min + ", " + max + "], not " + v);
        }
        return v;
    }
}
