package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The provider's RDMA channels against librdmacm's C {@code rstream} in both roles, speaking its protocol with
 * verification ({@code -T v}): the client sends 16 bytes and the server returns 16; then, each iteration, the client
 * sends COUNT transfers of SIZE bytes and the server sends as many back. Each side's bytes count 0, 1, ... 255, 0, ...
 * over the whole connection, and each side checks the other's.
 */
@RdmaDeviceTest
class NioRstreamInteropDeviceTest {
    private static final int ITERATIONS = 3;
    private static final int COUNT = 50;
    private static final int SIZE = 4000;

    private static final List<String> RSTREAM = CPeers.streamTest("rstream", ITERATIONS, COUNT, SIZE);

    @Test
    void rstreamClientAgainstJavaServer(Device device) throws Exception {
        String ip = DeviceSupport.address(device);
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("rdma bind " + ip + " *", false);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(new InetSocketAddress(ip, 0))) {
            CPeers.cClient(RSTREAM, server, ip, peer -> new Stream(peer).run(false));
        }
    }

    @Test
    void javaClientAgainstRstreamServer(Device device) throws Exception {
        CPeers.cServer(RSTREAM, DeviceSupport.address(device), 7473, channel -> { },
                client -> new Stream(client).run(true));
    }

    /** One side of rstream's byte stream: what it sends, and what it has checked of what it received. */
    private static final class Stream {
        private final SocketChannel channel;
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
        private int sent;
        private long received;

        Stream(SocketChannel channel) {
            this.channel = channel;
        }

        /** rstream's test: the 16-byte exchange, then ITERATIONS rounds, the client sending first in each. */
        void run(boolean client) throws IOException {
            exchange(client, 16);
            for (int i = 0; i < ITERATIONS; i++) {
                exchange(client, COUNT * SIZE);
            }
        }

        private void exchange(boolean client, int bytes) throws IOException {
            if (client) {
                send(bytes);
                receive(bytes);
            } else {
                receive(bytes);
                send(bytes);
            }
        }

        void send(int bytes) throws IOException {
            for (int left = bytes; left > 0; ) {
                buffer.clear().limit(Math.min(left, SIZE));
                while (buffer.hasRemaining()) {
                    buffer.put((byte) sent++);
                }
                buffer.flip();
                while (buffer.hasRemaining()) {
                    left -= channel.write(buffer);
                }
            }
        }

        void receive(int bytes) throws IOException {
            for (int left = bytes; left > 0; ) {
                buffer.clear().limit(Math.min(left, SIZE));
                int n = channel.read(buffer);
                assertTrue(n > 0, "rstream's stream ended " + left + " bytes early");
                buffer.flip();
                while (buffer.hasRemaining()) {
                    byte b = buffer.get();
                    if (b != (byte) received) {
                        fail("rstream's byte " + received + " is " + b + ", not " + (byte) received);
                    }
                    received++;
                }
                left -= n;
            }
        }
    }
}
