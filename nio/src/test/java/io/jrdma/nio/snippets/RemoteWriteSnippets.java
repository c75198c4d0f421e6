package io.jrdma.nio.snippets;

import io.jrdma.nio.IoMapping;
import io.jrdma.nio.RdmaChannels;
import io.jrdma.nio.RdmaSocketOptions;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** Remote writes between two RDMA channels: one side maps memory, the other writes into it. */
final class RemoteWriteSnippets {

    void option(SocketChannel channel) throws IOException {
        // @start region="option"
        channel.setOption(RdmaSocketOptions.IOMAP_SIZE, 1);   // the peer may map one buffer for us to write into
        channel.connect(new InetSocketAddress("10.0.2.15", 7000));
        // @end
    }

    void map(SocketChannel channel) throws IOException {
        // @start region="map"
        try (IoMapping mapping = IoMapping.allocate(channel, 4096, 0)) {
            channel.write(ByteBuffer.wrap(new byte[] {1}));   // carries the mapping to the peer before this byte
            MemorySegment memory = mapping.segment();
            while ((byte) ValueLayout.JAVA_BYTE.varHandle().getVolatile(memory, 4095L) != 1) {
                Thread.onSpinWait();                            // the peer writes the last byte last
            }
        }
        // @end
    }

    void write(SocketChannel channel) throws IOException {
        // @start region="write"
        channel.read(ByteBuffer.allocate(1));                   // the peer has mapped 4096 bytes at offset 0
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(4096);
            data.set(ValueLayout.JAVA_BYTE, 4095, (byte) 1);
            for (long done = 0; done < data.byteSize(); ) {
                done += RdmaChannels.write(channel, data.asSlice(done), done);
            }
        }
        // @end
    }
}
