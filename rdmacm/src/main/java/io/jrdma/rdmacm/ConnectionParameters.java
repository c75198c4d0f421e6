package io.jrdma.rdmacm;

import io.jrdma.bindings.rdmacm.rdma_conn_param;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What a side of a connection offers ({@code struct rdma_conn_param}): RDMA read/atomic depths, retry counts,
 * whether it receives through an SRQ, and private data for the peer's application.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=parameters}
 *
 * @param responderResources RDMA reads and atomics this side accepts at once from the peer (0-255)
 * @param initiatorDepth     RDMA reads and atomics this side has outstanding at once towards the peer (0-255)
 * @param flowControl        whether the hardware flow control of the QP is on (0 or 1)
 * @param retryCount         transport retries on timeout (0-7; connect only; Soft-RoCE retries forever at 7)
 * @param rnrRetryCount      retries when the peer has no receive posted (0-7, 7 = forever)
 * @param srq                whether this side's queue pair receives through a shared receive queue
 * @param qpNumber           the queue pair number, only when the QP was not created through the id
 * @param privateData        bytes for the peer's application, bounded by the CM message (see {@link #MAX_CONNECT_DATA});
 *                           received ones hold all the peer sent, up to {@link #MAX_PRIVATE_DATA}
 */
@SuppressWarnings("restricted")
public record ConnectionParameters(int responderResources, int initiatorDepth, int flowControl, int retryCount,
                                   int rnrRetryCount, boolean srq, int qpNumber, byte[] privateData) {
    /** Private data bytes a connect request carries on the TCP port space (REQ's 92 minus the CM's 36 header bytes). */
    public static final int MAX_CONNECT_DATA = 56;
    /** Private data bytes an accept carries (REP). */
    public static final int MAX_ACCEPT_DATA = 196;
    /** Private data bytes a reject carries (REJ). */
    public static final int MAX_REJECT_DATA = 148;
    /** Private data bytes a UD (SIDR) request carries on the UDP port space. */
    public static final int MAX_UD_REQUEST_DATA = 180;
    /**
     * Private data bytes any connection-manager event can carry, its length being one byte: what an iWARP peer may
     * send with its connect request or accept (InfiniBand and RoCE messages carry at most {@link #MAX_ACCEPT_DATA}).
     */
    public static final int MAX_PRIVATE_DATA = 255;

    /**
     * Checks the ranges and copies the private data ({@code null} means none). The private data is bounded by what
     * an event can carry, so that parameters received from any peer can be held; each call that sends them checks
     * the bound of its own message.
     *
     * @throws IllegalArgumentException if a value is out of the ranges above, or the private data is longer than
     *     {@link #MAX_PRIVATE_DATA}
     */
    public ConnectionParameters {
        byte8("responderResources", responderResources);
        byte8("initiatorDepth", initiatorDepth);
        range("flowControl", flowControl, 1);
        range("retryCount", retryCount, 7);
        range("rnrRetryCount", rnrRetryCount, 7);
        if ((qpNumber & ~0xffffff) != 0) {
            throw new IllegalArgumentException("qpNumber is 24 bits: " + qpNumber);
        }
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("private data of " + privateData.length + " bytes; the CM carries at "
                    + "most " + MAX_PRIVATE_DATA);
        }
    }

    /**
     * One outstanding read or atomic each way, 6 transport retries (Soft-RoCE takes 7 for "forever", so a peer that
     * died would never fail a send), 7 RNR retries (forever, as the verbs define it), no private data.
     *
     * @return the default parameters
     */
    public static ConnectionParameters defaults() {
        return new ConnectionParameters(1, 1, 0, 6, 7, false, 0, null);
    }

    /**
     * A copy with other read/atomic depths.
     *
     * @param responderResources reads and atomics accepted at once from the peer, 0-255
     * @param initiatorDepth     reads and atomics outstanding at once towards the peer, 0-255
     * @return the new parameters
     * @throws IllegalArgumentException if a value is out of range
     */
    public ConnectionParameters withResources(int responderResources, int initiatorDepth) {
        return new ConnectionParameters(responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount,
                srq, qpNumber, privateData);
    }

    /**
     * A copy with another transport retry count.
     *
     * @param retryCount 0-7; 7 makes Soft-RoCE retry forever
     * @return the new parameters
     * @throws IllegalArgumentException if the value is out of range
     */
    public ConnectionParameters withRetryCount(int retryCount) {
        return new ConnectionParameters(responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount,
                srq, qpNumber, privateData);
    }

    /**
     * A copy with another receiver-not-ready retry count.
     *
     * @param rnrRetryCount 0-7, 7 = forever
     * @return the new parameters
     * @throws IllegalArgumentException if the value is out of range
     */
    public ConnectionParameters withRnrRetryCount(int rnrRetryCount) {
        return new ConnectionParameters(responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount,
                srq, qpNumber, privateData);
    }

    /**
     * A copy that says whether this side receives through a shared receive queue.
     *
     * @param srq whether it does
     * @return the new parameters
     */
    public ConnectionParameters withSrq(boolean srq) {
        return new ConnectionParameters(responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount,
                srq, qpNumber, privateData);
    }

    /**
     * A copy naming the queue pair, for one not created through the id.
     *
     * @param qpNumber the 24-bit queue pair number
     * @return the new parameters
     * @throws IllegalArgumentException if it is over 24 bits
     */
    public ConnectionParameters withQpNumber(int qpNumber) {
        return new ConnectionParameters(responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount,
                srq, qpNumber, privateData);
    }

    /**
     * A copy with other private data; each call checks it against what it carries.
     *
     * @param privateData the bytes, or {@code null} for none
     * @return the new parameters
     * @throws IllegalArgumentException if longer than {@link #MAX_PRIVATE_DATA}
     */
    public ConnectionParameters withPrivateData(byte[] privateData) {
        return new ConnectionParameters(responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount,
                srq, qpNumber, privateData);
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

    /** The native struct, checking the private data against what {@code call} can carry. */
    MemorySegment toNative(Arena arena, int maxPrivateData, String call) {
        if (privateData.length > maxPrivateData) {
            throw new IllegalArgumentException(call + " carries at most " + maxPrivateData + " bytes of private data, not "
                    + privateData.length);
        }
        MemorySegment p = rdma_conn_param.allocate(arena);
        if (privateData.length > 0) {
            rdma_conn_param.private_data(p, arena.allocateFrom(ValueLayout.JAVA_BYTE, privateData));
        }
        rdma_conn_param.private_data_len(p, (byte) privateData.length);
        rdma_conn_param.responder_resources(p, (byte) responderResources);
        rdma_conn_param.initiator_depth(p, (byte) initiatorDepth);
        rdma_conn_param.flow_control(p, (byte) flowControl);
        rdma_conn_param.retry_count(p, (byte) retryCount);
        rdma_conn_param.rnr_retry_count(p, (byte) rnrRetryCount);
        rdma_conn_param.srq(p, (byte) (srq ? 1 : 0));
        rdma_conn_param.qp_num(p, qpNumber);
        return p;
    }

    /** What a connection event carried; every length its one-byte field can give is held. */
    static ConnectionParameters fromNative(MemorySegment p) {
        return new ConnectionParameters(Byte.toUnsignedInt(rdma_conn_param.responder_resources(p)),
                Byte.toUnsignedInt(rdma_conn_param.initiator_depth(p)), rdma_conn_param.flow_control(p) & 1,
                rdma_conn_param.retry_count(p) & 7, rdma_conn_param.rnr_retry_count(p) & 7,
                rdma_conn_param.srq(p) != 0, rdma_conn_param.qp_num(p) & 0xffffff,
                copy(rdma_conn_param.private_data(p), Byte.toUnsignedInt(rdma_conn_param.private_data_len(p))));
    }

    static byte[] copy(MemorySegment data, int length) {
        return data.equals(MemorySegment.NULL) || length == 0 ? new byte[0]
                : data.reinterpret(length).toArray(ValueLayout.JAVA_BYTE);
    }

    private static void byte8(String what, int v) {
        range(what, v, 255);
    }

    private static void range(String what, int v, int max) {
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(what + " must be in 0.." + max + ", not " + v);
        }
    }
}
