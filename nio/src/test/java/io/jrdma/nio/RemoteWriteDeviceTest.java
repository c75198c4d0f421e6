package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Remote writes between two channels of the provider on the device: what they move, and what they refuse. */
@RdmaDeviceTest
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RemoteWriteDeviceTest {

    /**
     * A connected pair whose client has {@code clientSize} as {@link RdmaSocketOptions#IOMAP_SIZE} (the server may
     * map that many buffers) and whose server has {@code serverSize} (the client may map that many).
     */
    private static void withPair(Device device, int clientSize, int serverSize, Pair test) throws Exception {
        String ip = DeviceSupport.address(device);
        RdmaSelectorProvider provider = DeviceSupport.rdmaProvider(ip);
        try (ServerSocketChannel server = provider.openServerSocketChannel()) {
            server.setOption(RdmaSocketOptions.IOMAP_SIZE, serverSize).bind(new InetSocketAddress(ip, 0));
            try (SocketChannel client = provider.openSocketChannel()) {
                // An rsocket connection is made only when the server accepts it: connect, accept, then finish.
                client.setOption(RdmaSocketOptions.IOMAP_SIZE, clientSize).configureBlocking(false);
                client.connect(server.getLocalAddress());
                try (SocketChannel accepted = server.accept()) {
                    client.configureBlocking(true);
                    assertTrue(client.finishConnect());
                    test.run(client, accepted);
                }
            }
        }
    }

    private interface Pair {
        void run(SocketChannel client, SocketChannel server) throws Exception;
    }

    @Test
    void writesLandInTheMappingsAtTheirOffsetsAndErrorsNameTheCause(Device device) throws Exception {
        withPair(device, 2, 0, (client, server) -> {
            try (IoMapping low = IoMapping.allocate(server, 8192, 0);
                 IoMapping high = IoMapping.allocate(server, 4096, 1 << 20);
                 Arena arena = Arena.ofConfined()) {
                assertEquals(1 << 20, high.offset());
                IOException third = assertThrows(IOException.class, () -> IoMapping.allocate(server, 64, 1 << 21));
                assertTrue(third.getMessage().contains("IOMAP_SIZE allows no more mappings"), third.getMessage());
                IOException none = assertThrows(IOException.class, () -> IoMapping.allocate(client, 64, 0));
                assertTrue(none.getMessage().contains("IOMAP_SIZE allows no more mappings"), none.getMessage());

                server.write(ByteBuffer.wrap(new byte[] {42}));   // carries both mappings to the client
                ByteBuffer one = ByteBuffer.allocate(1);
                client.read(one);
                assertEquals(42, one.get(0));

                byte[] pattern = new byte[6000];
                for (int i = 0; i < pattern.length; i++) {
                    pattern[i] = (byte) (i * 31 + 7);
                }
                MemorySegment source = arena.allocateFrom(ValueLayout.JAVA_BYTE, pattern);
                writeAll(client, source, 1000);
                MemorySegment flag = arena.allocateFrom(ValueLayout.JAVA_BYTE, (byte) 9);
                writeAll(client, flag, (1 << 20) + 4095);
                awaitByte(high.segment(), 4095, (byte) 9);
                // RDMA writes of one connection land in order: the first write is there when the second is.
                assertArrayEquals(pattern, low.segment().asSlice(1000, pattern.length).toArray(ValueLayout.JAVA_BYTE));
                assertEquals(0, low.segment().get(ValueLayout.JAVA_BYTE, 999));
                assertEquals(0, low.segment().get(ValueLayout.JAVA_BYTE, 7000));

                IOException unmapped = assertThrows(IOException.class,
                        () -> RdmaChannels.write(client, flag, 1 << 19));
                assertTrue(unmapped.getMessage().contains("in no buffer the peer has mapped"), unmapped.getMessage());
                assertEquals(0, RdmaChannels.write(client, arena.allocate(0), 0));
            }
        });
    }

    @Test
    void closingTheChannelUnmapsAndTheMemoryLastsUntilTheMappingCloses(Device device) throws Exception {
        withPair(device, 0, 1, (client, server) -> {
            IoMapping mapping = IoMapping.allocate(client, 4096, 0);
            client.close();   // rclose itself would spin over a mapping left mapped
            mapping.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
            assertEquals(1, mapping.segment().get(ValueLayout.JAVA_BYTE, 0));
            mapping.close();
            assertThrows(IllegalStateException.class, () -> mapping.segment().get(ValueLayout.JAVA_BYTE, 0));
            mapping.close();
        });
    }

    private static void writeAll(SocketChannel channel, MemorySegment source, long offset) throws IOException {
        for (long done = 0; done < source.byteSize(); ) {
            done += RdmaChannels.write(channel, source.asSlice(done), offset + done);
        }
    }

    private static void awaitByte(MemorySegment memory, long at, byte value) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((byte) ValueLayout.JAVA_BYTE.varHandle().getVolatile(memory, at) != value) {
            if (System.nanoTime() > deadline) {
                fail("the remote write of " + value + " at " + at + " never landed");
            }
            Thread.onSpinWait();
        }
    }
}
