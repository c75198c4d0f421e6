package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_qp_attr;
import io.jrdma.bindings.ibverbs.ibv_qp_cap;

import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The attributes of a queue pair ({@code struct ibv_qp_attr}): those a {@link QueuePair#modify} sets, made with
 * {@link #builder()}, or all of them as {@link QueuePair#query()} reports them. Each attribute is a
 * {@link QpAttribute} mask bit; asking for one that is not set is an error, so that a default never passes for a
 * value.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=qp-attributes}
 */
public final class QpAttributes {
    private final Set<QpAttribute> set;
    private final QpState state;
    private final QpState currentState;
    private final boolean sqdAsyncNotify;
    private final int accessFlags;
    private final int pkeyIndex;
    private final int port;
    private final int qkey;
    private final AddressVector addressVector;
    private final Mtu pathMtu;
    private final int timeout;
    private final int retryCount;
    private final int rnrRetry;
    private final int receivePsn;
    private final int maxReadAtomic;
    private final AlternatePath alternatePath;
    private final int minRnrTimer;
    private final int sendPsn;
    private final int maxDestReadAtomic;
    private final MigrationState migrationState;
    private final int destQpNumber;
    private final QueuePair.Capabilities capabilities;
    private final boolean sqDraining;

    private QpAttributes(Builder b, QueuePair.Capabilities capabilities, boolean sqDraining) {
        set = Collections.unmodifiableSet(EnumSet.copyOf(b.set));
        state = b.state;
        currentState = b.currentState;
        sqdAsyncNotify = b.sqdAsyncNotify;
        accessFlags = b.accessFlags;
        pkeyIndex = b.pkeyIndex;
        port = b.port;
        qkey = b.qkey;
        addressVector = b.addressVector;
        pathMtu = b.pathMtu;
        timeout = b.timeout;
        retryCount = b.retryCount;
        rnrRetry = b.rnrRetry;
        receivePsn = b.receivePsn;
        maxReadAtomic = b.maxReadAtomic;
        alternatePath = b.alternatePath;
        minRnrTimer = b.minRnrTimer;
        sendPsn = b.sendPsn;
        maxDestReadAtomic = b.maxDestReadAtomic;
        migrationState = b.migrationState;
        destQpNumber = b.destQpNumber;
        this.capabilities = capabilities;
        this.sqDraining = sqDraining;
    }

    /**
     * Starts a set of attributes for {@link QueuePair#modify}; each setter adds its {@link QpAttribute}.
     *
     * @return an empty builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The attributes set, that is the {@code attr_mask} of a modify.
     *
     * @return an unmodifiable set
     */
    public Set<QpAttribute> attributes() {
        return set;
    }

    /**
     * Whether {@code attribute} is set.
     *
     * @param attribute the attribute
     * @return whether it is set
     */
    public boolean has(QpAttribute attribute) {
        return set.contains(attribute);
    }

    /**
     * {@link QpAttribute#STATE}: the state (queried: the current one).
     *
     * @return the state
     * @throws IllegalStateException if it is not set
     */
    public QpState state() {
        require(QpAttribute.STATE);
        return state;
    }

    /**
     * {@link QpAttribute#CUR_STATE}: the state the caller believes the queue pair is in (queried: the current one).
     *
     * @return the state
     * @throws IllegalStateException if it is not set
     */
    public QpState currentState() {
        require(QpAttribute.CUR_STATE);
        return currentState;
    }

    /**
     * {@link QpAttribute#EN_SQD_ASYNC_NOTIFY}: whether entering SQD reports {@link AsyncEventType#SQ_DRAINED}.
     *
     * @return the flag
     * @throws IllegalStateException if it is not set
     */
    public boolean sqdAsyncNotify() {
        require(QpAttribute.EN_SQD_ASYNC_NOTIFY);
        return sqdAsyncNotify;
    }

    /**
     * {@link QpAttribute#ACCESS_FLAGS}: the {@code IBV_ACCESS_*} remote rights ({@link Access#mask()}).
     *
     * @return the flags
     * @throws IllegalStateException if it is not set
     */
    public int accessFlags() {
        require(QpAttribute.ACCESS_FLAGS);
        return accessFlags;
    }

    /**
     * {@link QpAttribute#PKEY_INDEX}: the primary path's P_Key index.
     *
     * @return the index
     * @throws IllegalStateException if it is not set
     */
    public int pkeyIndex() {
        require(QpAttribute.PKEY_INDEX);
        return pkeyIndex;
    }

    /**
     * {@link QpAttribute#PORT}: the primary path's local port.
     *
     * @return the port number
     * @throws IllegalStateException if it is not set
     */
    public int port() {
        require(QpAttribute.PORT);
        return port;
    }

    /**
     * {@link QpAttribute#QKEY}: the Q_Key (UD).
     *
     * @return the Q_Key
     * @throws IllegalStateException if it is not set
     */
    public int qkey() {
        require(QpAttribute.QKEY);
        return qkey;
    }

    /**
     * {@link QpAttribute#AV}: the primary path.
     *
     * @return the address vector
     * @throws IllegalStateException if it is not set
     */
    public AddressVector addressVector() {
        require(QpAttribute.AV);
        return addressVector;
    }

    /**
     * {@link QpAttribute#PATH_MTU}: the path MTU.
     *
     * @return the MTU; {@code null} in a query before RTR set one
     * @throws IllegalStateException if it is not set
     */
    public Mtu pathMtu() {
        require(QpAttribute.PATH_MTU);
        return pathMtu;
    }

    /**
     * {@link QpAttribute#TIMEOUT}: the local ACK timeout code.
     *
     * @return 0..31
     * @throws IllegalStateException if it is not set
     */
    public int timeout() {
        require(QpAttribute.TIMEOUT);
        return timeout;
    }

    /**
     * {@link QpAttribute#RETRY_CNT}: retries on timeout.
     *
     * @return 0..7
     * @throws IllegalStateException if it is not set
     */
    public int retryCount() {
        require(QpAttribute.RETRY_CNT);
        return retryCount;
    }

    /**
     * {@link QpAttribute#RNR_RETRY}: retries on RNR NAK (7: forever).
     *
     * @return 0..7
     * @throws IllegalStateException if it is not set
     */
    public int rnrRetry() {
        require(QpAttribute.RNR_RETRY);
        return rnrRetry;
    }

    /**
     * {@link QpAttribute#RQ_PSN}: the receive PSN (queried: the next one expected).
     *
     * @return 24 bits
     * @throws IllegalStateException if it is not set
     */
    public int receivePsn() {
        require(QpAttribute.RQ_PSN);
        return receivePsn;
    }

    /**
     * {@link QpAttribute#MAX_QP_RD_ATOMIC}: outstanding RDMA READs/atomics as initiator.
     *
     * @return 0..255
     * @throws IllegalStateException if it is not set
     */
    public int maxReadAtomic() {
        require(QpAttribute.MAX_QP_RD_ATOMIC);
        return maxReadAtomic;
    }

    /**
     * {@link QpAttribute#ALT_PATH}: the alternate path.
     *
     * @return the path
     * @throws IllegalStateException if it is not set
     */
    public AlternatePath alternatePath() {
        require(QpAttribute.ALT_PATH);
        return alternatePath;
    }

    /**
     * {@link QpAttribute#MIN_RNR_TIMER}: the RNR NAK timer code.
     *
     * @return 0..31
     * @throws IllegalStateException if it is not set
     */
    public int minRnrTimer() {
        require(QpAttribute.MIN_RNR_TIMER);
        return minRnrTimer;
    }

    /**
     * {@link QpAttribute#SQ_PSN}: the send PSN (queried: the next one).
     *
     * @return 24 bits
     * @throws IllegalStateException if it is not set
     */
    public int sendPsn() {
        require(QpAttribute.SQ_PSN);
        return sendPsn;
    }

    /**
     * {@link QpAttribute#MAX_DEST_RD_ATOMIC}: outstanding RDMA READs/atomics as responder.
     *
     * @return 0..255
     * @throws IllegalStateException if it is not set
     */
    public int maxDestReadAtomic() {
        require(QpAttribute.MAX_DEST_RD_ATOMIC);
        return maxDestReadAtomic;
    }

    /**
     * {@link QpAttribute#PATH_MIG_STATE}: the path migration state.
     *
     * @return the state
     * @throws IllegalStateException if it is not set
     */
    public MigrationState migrationState() {
        require(QpAttribute.PATH_MIG_STATE);
        return migrationState;
    }

    /**
     * {@link QpAttribute#DEST_QPN}: the remote queue pair number (RC, UC).
     *
     * @return 24 bits
     * @throws IllegalStateException if it is not set
     */
    public int destQpNumber() {
        require(QpAttribute.DEST_QPN);
        return destQpNumber;
    }

    /**
     * The queue sizes, as a query reports them.
     *
     * @return the capabilities
     * @throws IllegalStateException if these attributes are not from {@link QueuePair#query()}
     */
    public QueuePair.Capabilities capabilities() {
        requireQueried();
        return capabilities;
    }

    /**
     * Whether the send queue is still draining in SQD ({@code sq_draining}), as a query reports it.
     *
     * @return {@code true} until the drain is over
     * @throws IllegalStateException if these attributes are not from {@link QueuePair#query()}
     */
    public boolean sqDraining() {
        requireQueried();
        return sqDraining;
    }

    private void requireQueried() {
        if (capabilities == null) {
            throw new IllegalStateException("only a query reports the capabilities and sq_draining");
        }
    }

    private void require(QpAttribute attribute) {
        if (!set.contains(attribute)) {
            throw new IllegalStateException(attribute + " is not set in these attributes " + set);
        }
    }

    /** Writes the attributes set into {@code attr} and returns their mask. */
    int write(MemorySegment attr) {
        ibv_qp_attr.qp_state(attr, state == null ? 0 : state.value());
        ibv_qp_attr.cur_qp_state(attr, currentState == null ? 0 : currentState.value());
        ibv_qp_attr.en_sqd_async_notify(attr, (byte) (sqdAsyncNotify ? 1 : 0));
        ibv_qp_attr.qp_access_flags(attr, accessFlags);
        ibv_qp_attr.pkey_index(attr, (short) pkeyIndex);
        ibv_qp_attr.port_num(attr, (byte) port);
        ibv_qp_attr.qkey(attr, qkey);
        if (addressVector != null) {
            addressVector.write(ibv_qp_attr.ah_attr(attr));
        }
        ibv_qp_attr.path_mtu(attr, pathMtu == null ? 0 : pathMtu.value());
        ibv_qp_attr.timeout(attr, (byte) timeout);
        ibv_qp_attr.retry_cnt(attr, (byte) retryCount);
        ibv_qp_attr.rnr_retry(attr, (byte) rnrRetry);
        ibv_qp_attr.rq_psn(attr, receivePsn);
        ibv_qp_attr.max_rd_atomic(attr, (byte) maxReadAtomic);
        if (alternatePath != null) {
            alternatePath.addressVector().write(ibv_qp_attr.alt_ah_attr(attr));
            ibv_qp_attr.alt_pkey_index(attr, (short) alternatePath.pkeyIndex());
            ibv_qp_attr.alt_port_num(attr, (byte) alternatePath.port());
            ibv_qp_attr.alt_timeout(attr, (byte) alternatePath.timeout());
        }
        ibv_qp_attr.min_rnr_timer(attr, (byte) minRnrTimer);
        ibv_qp_attr.sq_psn(attr, sendPsn);
        ibv_qp_attr.max_dest_rd_atomic(attr, (byte) maxDestReadAtomic);
        ibv_qp_attr.path_mig_state(attr, migrationState == null ? 0 : migrationState.value());
        ibv_qp_attr.dest_qp_num(attr, destQpNumber);
        return QpAttribute.maskOf(set);
    }

    /** What {@code ibv_query_qp} wrote into {@code attr}, every attribute set. */
    static QpAttributes read(MemorySegment attr) {
        Builder b = readFields(attr);
        b.set.addAll(EnumSet.allOf(QpAttribute.class));
        MemorySegment cap = ibv_qp_attr.cap(attr);
        return new QpAttributes(b, new QueuePair.Capabilities(ibv_qp_cap.max_send_wr(cap),
                ibv_qp_cap.max_recv_wr(cap), ibv_qp_cap.max_send_sge(cap), ibv_qp_cap.max_recv_sge(cap),
                ibv_qp_cap.max_inline_data(cap)), ibv_qp_attr.sq_draining(attr) != 0);
    }

    /**
     * The attributes of {@code attr} that {@code mask} names, as something else than a query filled them (the
     * connection manager's {@code rdma_init_qp_attr}): ready for {@link QueuePair#modify}. Mask bits no
     * {@link QpAttribute} stands for are left out, as a modify could not pass them on.
     */
    static QpAttributes read(MemorySegment attr, int mask) {
        Builder b = readFields(attr);
        for (QpAttribute a : QpAttribute.values()) {
            if ((mask & a.mask()) != 0) {
                b.set.add(a);
            }
        }
        return new QpAttributes(b, null, false);
    }

    private static Builder readFields(MemorySegment attr) {
        Builder b = new Builder();
        b.state = QpState.of(ibv_qp_attr.qp_state(attr));
        b.currentState = QpState.of(ibv_qp_attr.cur_qp_state(attr));
        b.sqdAsyncNotify = ibv_qp_attr.en_sqd_async_notify(attr) != 0;
        b.accessFlags = ibv_qp_attr.qp_access_flags(attr);
        b.pkeyIndex = Short.toUnsignedInt(ibv_qp_attr.pkey_index(attr));
        b.port = Byte.toUnsignedInt(ibv_qp_attr.port_num(attr));
        b.qkey = ibv_qp_attr.qkey(attr);
        b.addressVector = AddressVector.read(ibv_qp_attr.ah_attr(attr));
        b.pathMtu = ibv_qp_attr.path_mtu(attr) == 0 ? null : Mtu.of(ibv_qp_attr.path_mtu(attr));
        b.timeout = Byte.toUnsignedInt(ibv_qp_attr.timeout(attr));
        b.retryCount = Byte.toUnsignedInt(ibv_qp_attr.retry_cnt(attr));
        b.rnrRetry = Byte.toUnsignedInt(ibv_qp_attr.rnr_retry(attr));
        b.receivePsn = ibv_qp_attr.rq_psn(attr);
        b.maxReadAtomic = Byte.toUnsignedInt(ibv_qp_attr.max_rd_atomic(attr));
        b.alternatePath = new AlternatePath(AddressVector.read(ibv_qp_attr.alt_ah_attr(attr)),
                Short.toUnsignedInt(ibv_qp_attr.alt_pkey_index(attr)),
                Byte.toUnsignedInt(ibv_qp_attr.alt_port_num(attr)), Byte.toUnsignedInt(ibv_qp_attr.alt_timeout(attr)));
        b.minRnrTimer = Byte.toUnsignedInt(ibv_qp_attr.min_rnr_timer(attr));
        b.sendPsn = ibv_qp_attr.sq_psn(attr);
        b.maxDestReadAtomic = Byte.toUnsignedInt(ibv_qp_attr.max_dest_rd_atomic(attr));
        b.migrationState = MigrationState.of(ibv_qp_attr.path_mig_state(attr));
        b.destQpNumber = ibv_qp_attr.dest_qp_num(attr);
        return b;
    }

    @Override
    public String toString() {
        return "QpAttributes" + set;
    }

    /**
     * Collects the attributes of one modify; every setter checks its range at once and marks its
     * {@link QpAttribute}.
     *
     * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=qp-modify}
     */
    public static final class Builder {
        private final EnumSet<QpAttribute> set = EnumSet.noneOf(QpAttribute.class);
        private QpState state;
        private QpState currentState;
        private boolean sqdAsyncNotify;
        private int accessFlags;
        private int pkeyIndex;
        private int port;
        private int qkey;
        private AddressVector addressVector;
        private Mtu pathMtu;
        private int timeout;
        private int retryCount;
        private int rnrRetry;
        private int receivePsn;
        private int maxReadAtomic;
        private AlternatePath alternatePath;
        private int minRnrTimer;
        private int sendPsn;
        private int maxDestReadAtomic;
        private MigrationState migrationState;
        private int destQpNumber;

        private Builder() {
        }

        /**
         * The state to move to ({@link QpAttribute#STATE}); without it, a modify changes attributes in the current
         * state.
         *
         * @param target the state
         * @return this builder
         * @throws IllegalArgumentException if {@code target} is {@link QpState#UNKNOWN}
         */
        public Builder state(QpState target) {
            state = known(target);
            return mark(QpAttribute.STATE);
        }

        /**
         * The state the queue pair is believed to be in ({@link QpAttribute#CUR_STATE}).
         *
         * @param current the state
         * @return this builder
         * @throws IllegalArgumentException if {@code current} is {@link QpState#UNKNOWN}
         */
        public Builder currentState(QpState current) {
            currentState = known(current);
            return mark(QpAttribute.CUR_STATE);
        }

        /**
         * Whether RTS → SQD reports {@link AsyncEventType#SQ_DRAINED} once the send queue is drained
         * ({@link QpAttribute#EN_SQD_ASYNC_NOTIFY}).
         *
         * @param on {@code true} to be notified
         * @return this builder
         */
        public Builder sqdAsyncNotify(boolean on) {
            sqdAsyncNotify = on;
            return mark(QpAttribute.EN_SQD_ASYNC_NOTIFY);
        }

        /**
         * What remote peers may do ({@link QpAttribute#ACCESS_FLAGS}).
         *
         * @param access the rights (for UC only {@link Access#REMOTE_WRITE} applies)
         * @return this builder
         * @throws IllegalArgumentException if the rights are inconsistent
         */
        public Builder remoteAccess(Access... access) {
            return accessFlags(Access.maskOf(Access.setOf(access)));
        }

        Builder accessFlags(int mask) {
            accessFlags = mask;
            return mark(QpAttribute.ACCESS_FLAGS);
        }

        /**
         * The primary path's P_Key index ({@link QpAttribute#PKEY_INDEX}).
         *
         * @param index 0..65535
         * @return this builder
         * @throws IllegalArgumentException if {@code index} is out of range
         */
        public Builder pkeyIndex(int index) {
            pkeyIndex = ConnectOptions.range("pkeyIndex", index, 0, 0xffff);
            return mark(QpAttribute.PKEY_INDEX);
        }

        /**
         * The primary path's local port ({@link QpAttribute#PORT}).
         *
         * @param number 1..255
         * @return this builder
         * @throws IllegalArgumentException if {@code number} is out of range
         */
        public Builder port(int number) {
            port = ConnectOptions.range("port", number, 1, 255);
            return mark(QpAttribute.PORT);
        }

        /**
         * The Q_Key ({@link QpAttribute#QKEY}, UD).
         *
         * @param key any 32-bit value both sides agree on
         * @return this builder
         */
        public Builder qkey(int key) {
            qkey = key;
            return mark(QpAttribute.QKEY);
        }

        /**
         * The primary path ({@link QpAttribute#AV}).
         *
         * @param path the path; its port must be set
         * @return this builder
         * @throws IllegalArgumentException if the path has no port
         * @throws NullPointerException     if {@code path} is null
         */
        public Builder addressVector(AddressVector path) {
            addressVector = withPort(path);
            return mark(QpAttribute.AV);
        }

        /**
         * The path MTU ({@link QpAttribute#PATH_MTU}).
         *
         * @param mtu at most the active MTU of both ports
         * @return this builder
         * @throws NullPointerException if {@code mtu} is null
         */
        public Builder pathMtu(Mtu mtu) {
            pathMtu = Objects.requireNonNull(mtu, "mtu");
            return mark(QpAttribute.PATH_MTU);
        }

        /**
         * The local ACK timeout ({@link QpAttribute#TIMEOUT}): 4.096 µs * 2^code, 0 infinite.
         *
         * @param code 0..31
         * @return this builder
         * @throws IllegalArgumentException if {@code code} is out of range
         */
        public Builder timeout(int code) {
            timeout = ConnectOptions.range("timeout", code, 0, 31);
            return mark(QpAttribute.TIMEOUT);
        }

        /**
         * Retries on timeout ({@link QpAttribute#RETRY_CNT}).
         *
         * @param n 0..7
         * @return this builder
         * @throws IllegalArgumentException if {@code n} is out of range
         */
        public Builder retryCount(int n) {
            retryCount = ConnectOptions.range("retryCount", n, 0, 7);
            return mark(QpAttribute.RETRY_CNT);
        }

        /**
         * Retries on RNR NAK ({@link QpAttribute#RNR_RETRY}), 7 forever.
         *
         * @param n 0..7
         * @return this builder
         * @throws IllegalArgumentException if {@code n} is out of range
         */
        public Builder rnrRetry(int n) {
            rnrRetry = ConnectOptions.range("rnrRetry", n, 0, 7);
            return mark(QpAttribute.RNR_RETRY);
        }

        /**
         * The first receive PSN ({@link QpAttribute#RQ_PSN}): the peer's first send PSN.
         *
         * @param psn 24 bits
         * @return this builder
         * @throws IllegalArgumentException if {@code psn} is over 24 bits
         */
        public Builder receivePsn(int psn) {
            receivePsn = ConnectOptions.range("receivePsn", psn, 0, 0xffffff);
            return mark(QpAttribute.RQ_PSN);
        }

        /**
         * Outstanding RDMA READs/atomics as initiator ({@link QpAttribute#MAX_QP_RD_ATOMIC}).
         *
         * @param n 0..255 (the device caps it)
         * @return this builder
         * @throws IllegalArgumentException if {@code n} is out of range
         */
        public Builder maxReadAtomic(int n) {
            maxReadAtomic = ConnectOptions.range("maxReadAtomic", n, 0, 255);
            return mark(QpAttribute.MAX_QP_RD_ATOMIC);
        }

        /**
         * The alternate path ({@link QpAttribute#ALT_PATH}).
         *
         * @param path the path; it and its address vector must name a port
         * @return this builder
         * @throws IllegalArgumentException if the path or its address vector has no port
         * @throws NullPointerException     if {@code path} is null
         */
        public Builder alternatePath(AlternatePath path) {
            withPort(path.addressVector());
            ConnectOptions.range("alternate port", path.port(), 1, 255);
            alternatePath = path;
            return mark(QpAttribute.ALT_PATH);
        }

        /**
         * The RNR NAK timer ({@link QpAttribute#MIN_RNR_TIMER}).
         *
         * @param code 0..31 (e.g. 12 = 0.64 ms)
         * @return this builder
         * @throws IllegalArgumentException if {@code code} is out of range
         */
        public Builder minRnrTimer(int code) {
            minRnrTimer = ConnectOptions.range("minRnrTimer", code, 0, 31);
            return mark(QpAttribute.MIN_RNR_TIMER);
        }

        /**
         * The first send PSN ({@link QpAttribute#SQ_PSN}).
         *
         * @param psn 24 bits
         * @return this builder
         * @throws IllegalArgumentException if {@code psn} is over 24 bits
         */
        public Builder sendPsn(int psn) {
            sendPsn = ConnectOptions.range("sendPsn", psn, 0, 0xffffff);
            return mark(QpAttribute.SQ_PSN);
        }

        /**
         * Outstanding RDMA READs/atomics as responder ({@link QpAttribute#MAX_DEST_RD_ATOMIC}).
         *
         * @param n 0..255 (the device caps it)
         * @return this builder
         * @throws IllegalArgumentException if {@code n} is out of range
         */
        public Builder maxDestReadAtomic(int n) {
            maxDestReadAtomic = ConnectOptions.range("maxDestReadAtomic", n, 0, 255);
            return mark(QpAttribute.MAX_DEST_RD_ATOMIC);
        }

        /**
         * The path migration state ({@link QpAttribute#PATH_MIG_STATE}).
         *
         * @param migration the state
         * @return this builder
         * @throws NullPointerException if {@code migration} is null
         */
        public Builder migrationState(MigrationState migration) {
            migrationState = Objects.requireNonNull(migration, "migration");
            return mark(QpAttribute.PATH_MIG_STATE);
        }

        /**
         * The remote queue pair number ({@link QpAttribute#DEST_QPN}).
         *
         * @param qpn 24 bits
         * @return this builder
         * @throws IllegalArgumentException if {@code qpn} is over 24 bits
         */
        public Builder destQpNumber(int qpn) {
            destQpNumber = ConnectOptions.range("destQpNumber", qpn, 0, 0xffffff);
            return mark(QpAttribute.DEST_QPN);
        }

        /**
         * The attributes set so far.
         *
         * @return an immutable snapshot; the builder may go on
         * @throws IllegalStateException if nothing is set
         */
        public QpAttributes build() {
            if (set.isEmpty()) {
                throw new IllegalStateException("no attribute set: a modify must change something");
            }
            return new QpAttributes(this, null, false);
        }

        private Builder mark(QpAttribute attribute) {
            set.add(attribute);
            return this;
        }

        private static QpState known(QpState s) {
            if (Objects.requireNonNull(s, "state") == QpState.UNKNOWN) {
                throw new IllegalArgumentException("UNKNOWN is no state to set");
            }
            return s;
        }

        private static AddressVector withPort(AddressVector path) {
            if (path.port() == 0) {
                throw new IllegalArgumentException("the path needs its local port: " + path);
            }
            return path;
        }
    }
}
