package io.jrdma.rdmacm;

import io.jrdma.bindings.rdmacm.ibv_sa_path_rec;
import io.jrdma.bindings.rdmacm.rdma_conn_param;
import io.jrdma.ibverbs.Mtu;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * What a peer chose, as the connection manager hands it over, is read whatever it says: an event's private data of
 * any length its one-byte field can give (an iWARP peer chooses up to 255 bytes), and a path with an MTU code that is
 * none of the verbs' (on the passive side, the path a connect request named).
 */
class PeerInputTest {

    @ParameterizedTest
    @ValueSource(ints = {0, 1, ConnectionParameters.MAX_CONNECT_DATA, ConnectionParameters.MAX_ACCEPT_DATA,
            ConnectionParameters.MAX_ACCEPT_DATA + 1, ConnectionParameters.MAX_PRIVATE_DATA})
    void aConnectionEventHoldsAllThePrivateDataItsLengthByteGives(int length) {
        byte[] sent = new byte[length];
        for (int i = 0; i < length; i++) {
            sent[i] = (byte) (i + 1);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment p = rdma_conn_param.allocate(arena);
            rdma_conn_param.private_data(p, arena.allocateFrom(ValueLayout.JAVA_BYTE, sent));
            rdma_conn_param.private_data_len(p, (byte) length);
            rdma_conn_param.responder_resources(p, (byte) 255);
            rdma_conn_param.initiator_depth(p, (byte) 255);
            rdma_conn_param.flow_control(p, (byte) 255);
            rdma_conn_param.retry_count(p, (byte) 255);
            rdma_conn_param.rnr_retry_count(p, (byte) 255);
            rdma_conn_param.qp_num(p, -1);
            ConnectionParameters received = ConnectionParameters.fromNative(p);
            assertArrayEquals(sent, received.privateData());
            assertEquals(255, received.responderResources());
            assertEquals(0xffffff, received.qpNumber());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 6, 7, 15, 63})
    void aPathWhoseMtuCodeIsNoneOfTheVerbsIsLeftOut(int code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rec = ibv_sa_path_rec.allocate(arena);
            ibv_sa_path_rec.mtu(rec, (byte) code);
            assertNull(PathRecord.read(rec));
            ibv_sa_path_rec.mtu(rec, (byte) Mtu.MTU_1024.value());
            assertEquals(Mtu.MTU_1024, PathRecord.read(rec).mtu());
        }
    }
}
