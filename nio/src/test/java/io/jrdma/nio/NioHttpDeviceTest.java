package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** HTTP servers and clients that know nothing of jrdma, unchanged, over rsockets: Netty's HTTP codec and Jetty. */
@RdmaDeviceTest
class NioHttpDeviceTest {

    @Test
    void nettyHttpServerAndClientRunUnchangedOverRsockets(Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        NettyHttp.Channels channels = NettyHttp.run(DeviceSupport.rdmaProvider(ip), ip);
        assertTrue(((ServerSocketChannelImpl) channels.server()).nativeSocket().transport().isRdma());
        assertTrue(((SocketChannelImpl) channels.client()).isRdma());
    }

    @Test
    void jettyServerAndClientRunUnchangedOverRsocketsSwitchedOnBySystemProperties(Device device) throws Exception {
        String output = DeviceSupport.runUnchangedAppOverRdma(device, UnchangedJettyApp.class, "jetty whole");
        assertTrue(output.contains("listening ServerSocketChannelImpl[rdma socket"), output);
        assertTrue(output.contains("client SocketChannelImpl[rdma socket"), output);
        assertTrue(output.contains("server SocketChannelImpl[rdma socket"), output);
        assertFalse(output.contains("tcp socket"), output);
    }
}
