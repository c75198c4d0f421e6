package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The provider's remote writes ({@link IoMapping}, {@link RdmaChannels#write}) against librdmacm's C
 * {@code riostream} in both roles, speaking its protocol with verification ({@code -T v}). Each side maps SIZE
 * bytes at offset 0 and sends 16 bytes (which carry the mapping) the other way. Then, each iteration, the client
 * writes COUNT transfers of SIZE bytes into the server's mapping, the last one formatted (bytes 0, 1, ... 255, 0, ...
 * counted over the whole run) and ending in a marker byte; the server waits for the marker in its memory, checks
 * the bytes before it, and writes back the same way.
 */
@RdmaDeviceTest
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NioRiostreamInteropDeviceTest {
    private static final int ITERATIONS = 5;
    private static final int COUNT = 20;
    private static final int SIZE = 4096;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    private static final List<String> RIOSTREAM = CPeers.streamTest("riostream", ITERATIONS, COUNT, SIZE);

    @Test
    void riostreamClientAgainstJavaServer(Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("rdma bind " + ip + " *", false);
        try (ServerSocketChannel server = provider.openServerSocketChannel()) {
            // Set on the listener: an accepted rsocket starts with its listener's options.
            server.setOption(RdmaSocketOptions.IOMAP_SIZE, 1).bind(new InetSocketAddress(ip, 0));
            CPeers.cClient(RIOSTREAM, server, ip, peer -> {
                assertEquals(1, peer.getOption(RdmaSocketOptions.IOMAP_SIZE));
                new Side(peer).run(false);
            });
        }
    }

    @Test
    void javaClientAgainstRiostreamServer(Device device) throws Exception {
        CPeers.cServer(RIOSTREAM, DeviceSupport.address(device), 7475,
                channel -> channel.setOption(RdmaSocketOptions.IOMAP_SIZE, 1), client -> new Side(client).run(true));
    }

    /** One side of riostream's test: its mapping, what it writes, and what it has checked of the peer's writes. */
    private static final class Side {
        private final SocketChannel channel;
        private byte formatted;
        private byte checked;
        private long checkedBytes;

        Side(SocketChannel channel) {
            this.channel = channel;
        }

        void run(boolean client) throws IOException {
            try (IoMapping mapping = IoMapping.allocate(channel, SIZE, 0); Arena arena = Arena.ofConfined()) {
                MemorySegment received = mapping.segment();
                MemorySegment source = arena.allocate(SIZE);
                // The transfers before an iteration's last carry the last byte too: never the marker awaited.
                received.set(ValueLayout.JAVA_BYTE, SIZE - 1, (byte) -1);
                source.set(ValueLayout.JAVA_BYTE, SIZE - 1, (byte) -1);
                sync(client);
                byte marker = 0;
                for (int i = 0; i < ITERATIONS; i++) {
                    if (client) {
                        send(source, marker++);
                        await(received, marker++);
                    } else {
                        await(received, marker++);
                        send(source, marker++);
                    }
                }
            }
        }

        /** riostream's 16 bytes each way, which also carry each side's mapping to the other. */
        private void sync(boolean client) throws IOException {
            ByteBuffer sixteen = ByteBuffer.allocateDirect(16);
            for (boolean sending : client ? new boolean[] {true, false} : new boolean[] {false, true}) {
                sixteen.clear();
                while (sixteen.hasRemaining()) {
                    if ((sending ? channel.write(sixteen) : channel.read(sixteen)) < 0) {
                        fail("riostream closed the connection during the 16-byte exchange");
                    }
                }
            }
        }

        /** COUNT transfers into the peer's mapping; the last one formatted and ending in {@code marker}. */
        private void send(MemorySegment source, byte marker) throws IOException {
            for (int t = 0; t < COUNT; t++) {
                if (t == COUNT - 1) {
                    for (long b = 0; b < SIZE - 1; b++) {
                        source.set(ValueLayout.JAVA_BYTE, b, formatted++);
                    }
                    source.set(ValueLayout.JAVA_BYTE, SIZE - 1, marker);
                }
                for (long done = 0; done < SIZE; ) {
                    done += RdmaChannels.write(channel, source.asSlice(done), done);
                }
            }
        }

        /** Waits until the peer's last transfer has put {@code marker} at the end, then checks the rest. */
        private void await(MemorySegment received, byte marker) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while ((byte) BYTE.getVolatile(received, (long) SIZE - 1) != marker) {
                if (System.nanoTime() > deadline) {
                    fail("riostream's marker " + marker + " never came");
                }
                Thread.onSpinWait();
            }
            for (long b = 0; b < SIZE - 1; b++, checkedBytes++) {
                byte got = received.get(ValueLayout.JAVA_BYTE, b);
                if (got != checked++) {
                    fail("riostream's byte " + checkedBytes + " is " + got + ", not " + (byte) (checked - 1));
                }
            }
        }
    }
}
