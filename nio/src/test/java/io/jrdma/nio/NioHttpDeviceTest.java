package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** HTTP servers and clients that know nothing of jrdma, unchanged, over rsockets: Netty's HTTP codec. */
@RdmaDeviceTest
class NioHttpDeviceTest {

    @Test
    void nettyHttpServerAndClientRunUnchangedOverRsockets(Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        NettyHttp.Channels channels = NettyHttp.run(DeviceSupport.rdmaProvider(ip), ip);
        assertTrue(((ServerSocketChannelImpl) channels.server()).nativeSocket().transport().isRdma());
        assertTrue(((SocketChannelImpl) channels.client()).isRdma());
    }
}
