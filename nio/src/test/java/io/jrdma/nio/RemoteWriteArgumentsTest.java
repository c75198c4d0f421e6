package io.jrdma.nio;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Remote writes and {@link RdmaSocketOptions#IOMAP_SIZE} refuse what cannot work before any rsockets call; on TCP
 * the option is kept without effect. Needs librdmacm installed, no RDMA device.
 */
class RemoteWriteArgumentsTest {
    private final RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("", false);

    @Test
    void iomapSizeIsCheckedAndKeptOnTcp() throws Exception {
        try (SocketChannel channel = provider.openSocketChannel();
             ServerSocketChannel server = provider.openServerSocketChannel()) {
            assertEquals(0, channel.getOption(RdmaSocketOptions.IOMAP_SIZE));
            channel.setOption(RdmaSocketOptions.IOMAP_SIZE, RdmaSocketOptions.MAX_IOMAP_SIZE);
            assertEquals(RdmaSocketOptions.MAX_IOMAP_SIZE, channel.getOption(RdmaSocketOptions.IOMAP_SIZE));
            server.setOption(RdmaSocketOptions.IOMAP_SIZE, 2);
            assertEquals(2, server.getOption(RdmaSocketOptions.IOMAP_SIZE));
            IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
                    () -> channel.setOption(RdmaSocketOptions.IOMAP_SIZE, RdmaSocketOptions.MAX_IOMAP_SIZE + 1));
            assertTrue(tooMany.getMessage().contains("at most 128"), tooMany.getMessage());
            assertThrows(IllegalArgumentException.class, () -> server.setOption(RdmaSocketOptions.IOMAP_SIZE, -1));
            assertTrue(channel.supportedOptions().contains(RdmaSocketOptions.IOMAP_SIZE));
            assertTrue(server.supportedOptions().contains(RdmaSocketOptions.IOMAP_SIZE));
        }
    }

    @Test
    void remoteWritesNeedAConnectedRdmaChannelAndNativeMemory() throws Exception {
        try (Arena arena = Arena.ofConfined();
             ServerSocketChannel server = provider.openServerSocketChannel().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel unconnected = provider.openSocketChannel();
             SocketChannel tcp = provider.openSocketChannel();
             SocketChannel jdk = SocketChannel.open()) {
            MemorySegment data = arena.allocate(64);
            assertThrows(NotYetConnectedException.class, () -> IoMapping.allocate(unconnected, 64, 0));
            assertThrows(NotYetConnectedException.class, () -> RdmaChannels.write(unconnected, data, 0));
            tcp.connect(server.getLocalAddress());
            assertFalse(RdmaChannels.isRdma(tcp));
            assertFalse(RdmaChannels.isRdma(server));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> RdmaChannels.write(tcp, data, 0))
                    .getMessage().contains("runs over TCP"));
            assertThrows(IllegalArgumentException.class, () -> IoMapping.allocate(tcp, 64, 0));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> RdmaChannels.write(jdk, data, 0))
                    .getMessage().contains("not a channel of"));
            assertFalse(RdmaChannels.isRdma(jdk));
            assertThrows(IllegalArgumentException.class, () -> IoMapping.allocate(unconnected, 0, 0));
            assertThrows(IllegalArgumentException.class, () -> IoMapping.allocate(unconnected, 64, -1));
            assertThrows(IllegalArgumentException.class,
                    () -> RdmaChannels.write(unconnected, MemorySegment.ofArray(new byte[8]), 0));
            assertThrows(IllegalArgumentException.class, () -> RdmaChannels.write(unconnected, data, -1));
            assertThrows(NullPointerException.class, () -> RdmaChannels.write(unconnected, null, 0));
        }
    }
}
