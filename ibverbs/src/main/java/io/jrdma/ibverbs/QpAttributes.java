package io.jrdma.ibverbs;

/**
 * The attributes of a queue pair as the device has them ({@code ibv_query_qp}).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=qp-attributes}
 *
 * @param state             current state
 * @param pathMtu           path MTU, {@code null} until RTR sets one
 * @param qkey              Q_Key (UD)
 * @param receivePsn        next expected receive PSN
 * @param sendPsn           next send PSN
 * @param destQpNumber      the connected remote QP number (RC, UC)
 * @param accessFlags       {@code IBV_ACCESS_*} remote rights
 * @param maxReadAtomic     outstanding RDMA READ/atomics as initiator
 * @param maxDestReadAtomic outstanding RDMA READ/atomics as responder
 * @param minRnrTimer       RNR NAK timer code
 * @param port              port number
 * @param timeout           local ACK timeout code
 * @param retryCount        retries on timeout
 * @param rnrRetry          retries on RNR NAK
 * @param capabilities      queue sizes
 */
public record QpAttributes(QpState state, Mtu pathMtu, int qkey, int receivePsn, int sendPsn, int destQpNumber,
                           int accessFlags, int maxReadAtomic, int maxDestReadAtomic, int minRnrTimer, int port,
                           int timeout, int retryCount, int rnrRetry, QueuePair.Capabilities capabilities) {
}
