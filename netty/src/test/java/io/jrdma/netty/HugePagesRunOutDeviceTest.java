package io.jrdma.netty;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A loop whose worker's pool takes huge pages, on a kernel with none left: what may fall back to plain memory does,
 * and a close still reaches the peer.
 */
@RdmaDeviceTest
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class HugePagesRunOutDeviceTest {
    private static final Path RESERVED = Path.of("/proc/sys/vm/nr_hugepages");

    @Test
    void aLoopWithNoHugePageLeftAllocatesPlainBuffersAndAResetCloseStillEndsThePeer(Device device) throws Exception {
        String before = Files.readString(RESERVED).trim();
        try (NettyBed bed = new NettyBed(device, 1, NettyBed.OPTIONS, NettyBed.OPTIONS.withHugePages(true))) {
            Files.writeString(RESERVED, "0");
            Tally peer = new Tally(Long.MAX_VALUE);
            Channel server = bed.serve(() -> new ChannelHandler[] {peer}, true);
            Channel client = bed.connect(server, () -> new ChannelHandler[] {new ChannelInboundHandlerAdapter()});
            Channel accepted = peer.active.get(60, TimeUnit.SECONDS);

            ByteBuf plain = client.eventLoop().submit(() -> client.alloc().directBuffer(64)).get(60, TimeUnit.SECONDS);
            try {
                assertFalse(plain instanceof RegisteredByteBuf, "no registered memory was to be had");
                assertEquals(64, plain.capacity());
            } finally {
                plain.release();
            }

            // The reset's mark needs a pooled buffer, which the pool cannot make: the close goes on in order.
            client.config().setOption(ChannelOption.SO_LINGER, 0);
            client.close().sync();
            assertTrue(accepted.closeFuture().await(60, TimeUnit.SECONDS), "the peer's channel stayed open");
            server.close().sync();
        } finally {
            Files.writeString(RESERVED, before);
        }
    }
}
