package io.jrdma.nativetest.cluster;

import io.jrdma.nativetest.interop.CmToolExchanges;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;

/**
 * {@link CmToolExchanges} across two nodes: the Java peers here, rdmacm-utils' {@code ucmatose}, {@code udaddy},
 * {@code mckey} and {@code rdma_server}/{@code rdma_client} on the other node, each in both roles; the multicast
 * group spans the nodes' shared segment.
 */
@ClusterTest
class CmToolsAcrossNodesClusterTest {
    private static CmToolExchanges across() throws IOException {
        ClusterNode peer = ClusterNode.peer();
        return new CmToolExchanges(ClusterNode.localDataAddress(), peer.dataAddress(), peer::startProgram, 18721);
    }

    @Test
    void cmatoseJavaServerHereAndCClientThere() throws Exception {
        across().cmatoseJavaServerAndCClient();
    }

    @Test
    void cmatoseCServerThereAndJavaClientHere() throws Exception {
        across().cmatoseCServerAndJavaClient();
    }

    @Test
    void udaddyJavaServerHereAndCClientThere() throws Exception {
        across().udaddyJavaServerAndCClient();
    }

    @Test
    void udaddyCServerThereAndJavaClientHere() throws Exception {
        across().udaddyCServerAndJavaClient();
    }

    @Test
    void mckeyJavaReceiverHereAndCSenderThere() throws Exception {
        across().mckeyJavaReceiverAndCSender(InetAddress.getByName("239.18.8.1"));
    }

    @Test
    void mckeyCReceiverThereAndJavaSenderHere() throws Exception {
        across().mckeyCReceiverAndJavaSender(InetAddress.getByName("239.18.8.2"));
    }

    @Test
    void rdmaServerThereAndJavaClientHere() throws Exception {
        across().rdmaServerAndJavaClient();
    }

    @Test
    void javaServerHereAndRdmaClientThere() throws Exception {
        across().javaServerAndRdmaClient();
    }
}
