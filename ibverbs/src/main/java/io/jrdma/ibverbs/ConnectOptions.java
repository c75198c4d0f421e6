package io.jrdma.ibverbs;

import java.util.Objects;

/**
 * How {@link QueuePair#connect} brings a queue pair to RTS: the local port and GID, the path MTU and its Global
 * Route Header, and the RC timers and limits. Defaults follow {@code ibv_rc_pingpong}, but for the hop limit: 64,
 * which a routed network needs (on RoCE the kernel replaces it with its route's hop limit anyway).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=connect-options}
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
    private int hopLimit = GlobalRoute.DEFAULT_HOP_LIMIT;
    private int trafficClass;
    private int flowLabel;
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
     * Options for a path from local {@code port}, with every timer and limit at its default.
     *
     * @param port     local port, from 1
     * @param gidIndex local GID index for a GRH (required on RoCE), or -1 to route by LID only
     * @param mtu      path MTU, at most the active MTU of both ports
     * @return the options, to adjust with the methods below
     * @throws IllegalArgumentException if {@code port} is not in [1, 255] or {@code gidIndex} not in [-1, 255]
     * @throws NullPointerException     if {@code mtu} is null
     */
    public static ConnectOptions of(int port, int gidIndex, Mtu mtu) {
        return new ConnectOptions(port, gidIndex, mtu);
    }

    /**
     * Outstanding RDMA READs/atomics, both as initiator and as responder (default 1).
     *
     * @param n outstanding requests, 0..255 (the device caps it: {@link DeviceAttributes#maxQpRdAtom()})
     * @return these options
     * @throws IllegalArgumentException if the value is out of range
     */
    public ConnectOptions maxReadAtomic(int n) {
        this.maxReadAtomic = range("maxReadAtomic", n, 0, 255);
        return this;
    }

    /**
     * RNR NAK timer code, 0..31 (default 12 = 0.64 ms).
     *
     * @param code the IBTA timer code (e.g. 1 = 0.01 ms, 12 = 0.64 ms, 31 = 491.52 ms; 0 = 655.36 ms)
     * @return these options
     * @throws IllegalArgumentException if the value is out of range
     */
    public ConnectOptions minRnrTimer(int code) {
        this.minRnrTimer = range("minRnrTimer", code, 0, 31);
        return this;
    }

    /**
     * Local ACK timeout code, 0..31: 4.096 µs * 2^code (default 14 ≈ 67 ms).
     *
     * @param code the exponent; 0 means infinite
     * @return these options
     * @throws IllegalArgumentException if the value is out of range
     */
    public ConnectOptions timeout(int code) {
        this.timeout = range("timeout", code, 0, 31);
        return this;
    }

    /**
     * Retries on timeout, 0..7. The default is 6, not 7: Soft-RoCE takes 7 for "forever", and a send to a peer that
     * died would then never fail.
     *
     * @param n the number of retries
     * @return these options
     * @throws IllegalArgumentException if the value is out of range
     */
    public ConnectOptions retryCount(int n) {
        this.retryCount = range("retryCount", n, 0, 7);
        return this;
    }

    /**
     * Retries on RNR NAK, 0..7, 7 = forever (default 7).
     *
     * @param n the number of retries; 7 retries forever
     * @return these options
     * @throws IllegalArgumentException if the value is out of range
     */
    public ConnectOptions rnrRetry(int n) {
        this.rnrRetry = range("rnrRetry", n, 0, 7);
        return this;
    }

    /**
     * Service level, 0..15 (default 0).
     *
     * @param sl the service level
     * @return these options
     * @throws IllegalArgumentException if the value is out of range
     */
    public ConnectOptions serviceLevel(int sl) {
        this.serviceLevel = range("serviceLevel", sl, 0, 15);
        return this;
    }

    /**
     * The GRH hop limit, 0..255 (default {@link GlobalRoute#DEFAULT_HOP_LIMIT}); with a GID index only.
     *
     * @param hops how many routers the packets may cross
     * @return these options
     * @throws IllegalArgumentException if the value is out of range
     */
    public ConnectOptions hopLimit(int hops) {
        this.hopLimit = range("hopLimit", hops, 0, 255);
        return this;
    }

    /**
     * The GRH traffic class, 0..255 (default 0; on RoCE v2 the DSCP and ECN bits); with a GID index only.
     *
     * @param tclass the traffic class
     * @return these options
     * @throws IllegalArgumentException if the value is out of range
     */
    public ConnectOptions trafficClass(int tclass) {
        this.trafficClass = range("trafficClass", tclass, 0, 255);
        return this;
    }

    /**
     * The GRH flow label, 20 bits (default 0); with a GID index only.
     *
     * @param label the flow label
     * @return these options
     * @throws IllegalArgumentException if the value is out of range
     */
    public ConnectOptions flowLabel(int label) {
        this.flowLabel = range("flowLabel", label, 0, 0xfffff);
        return this;
    }

    /**
     * What the peer may do to this QP's memory (default: remote read, write and atomics).
     *
     * @param access the rights; for UC only {@link Access#REMOTE_WRITE} applies
     * @return these options
     * @throws IllegalArgumentException if the rights are inconsistent (remote write or atomics without local write)
     */
    public ConnectOptions remoteAccess(Access... access) {
        this.accessFlags = Access.maskOf(Access.setOf(access));
        return this;
    }

    int port() {
        return port;
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

    /** The path to {@code remote} these options describe. */
    AddressVector path(Endpoint remote) {
        AddressVector path = AddressVector.to(remote, port, gidIndex).withServiceLevel(serviceLevel);
        GlobalRoute grh = path.globalRoute();
        return grh == null ? path : path.withGlobalRoute(
                grh.withHopLimit(hopLimit).withTrafficClass(trafficClass).withFlowLabel(flowLabel));
    }

    int accessFlags() {
        return accessFlags;
    }

    static int range(String what, int v, int min, int max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(what + " must be in [" + min + ", " + max + "], not " + v);
        }
        return v;
    }
}
