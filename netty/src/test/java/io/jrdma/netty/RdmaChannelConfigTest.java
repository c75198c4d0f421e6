package io.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The options an RDMA channel takes and those it refuses, without a device: no channel here is registered. */
class RdmaChannelConfigTest {
    @Test
    void aSocketChannelSendsAtOnceTakesHalfClosureAndTheWorkersKeepaliveAndRefusesTheSocketBuffers() {
        RdmaSocketChannel ch = new RdmaSocketChannel();
        assertEquals(Boolean.TRUE, ch.config().getOption(ChannelOption.TCP_NODELAY));
        assertTrue(ch.config().setOption(ChannelOption.TCP_NODELAY, true));
        assertTrue(ch.config().getOptions().containsKey(ChannelOption.TCP_NODELAY));
        assertFalse(ch.config().setOption(ChannelOption.SO_RCVBUF, 1 << 20));
        // The worker's keepalive, on in the default options: grpc-netty asks every client channel for it.
        assertTrue(ch.config().setOption(ChannelOption.SO_KEEPALIVE, true));
        assertEquals(Boolean.TRUE, ch.config().getOption(ChannelOption.SO_KEEPALIVE));
        assertThrows(UnsupportedOperationException.class, () -> ch.config().setKeepAlive(false));
        assertThrows(UnsupportedOperationException.class, () -> ch.config().setTcpNoDelay(false));
        assertThrows(UnsupportedOperationException.class, () -> ch.config().setSendBufferSize(1 << 20));
        assertFalse(ch.config().isAllowHalfClosure());
        assertTrue(ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true));
        assertEquals(Boolean.TRUE, ch.config().getOption(ChannelOption.ALLOW_HALF_CLOSURE));
        assertTrue(ch.isOutputShutdown(), "an unconnected channel has no output");
        assertFalse(ch.isActive());
        assertTrue(ch.isOpen());
    }

    @Test
    void aSocketChannelTakesSoLingerOffByDefaultWhereZeroMakesItsCloseAReset() {
        RdmaSocketChannel ch = new RdmaSocketChannel();
        assertEquals(-1, ch.config().getOption(ChannelOption.SO_LINGER));
        assertTrue(ch.config().getOptions().containsKey(ChannelOption.SO_LINGER));
        assertTrue(ch.config().setOption(ChannelOption.SO_LINGER, 0));
        assertEquals(0, ch.config().getSoLinger());
        ch.config().setSoLinger(5);
        assertEquals(5, ch.config().getOption(ChannelOption.SO_LINGER));
        ch.config().setSoLinger(-7);
        assertEquals(-1, ch.config().getSoLinger(), "a negative linger is off, as on Netty's socket channels");
    }

    @Test
    void aSocketChannelAllocatesThroughTheRegisteringAllocatorWhichOffALoopGivesNettysBuffers() {
        RdmaSocketChannel ch = new RdmaSocketChannel();
        assertSame(RdmaByteBufAllocator.DEFAULT, ch.config().getAllocator());
        ByteBuf off = RdmaByteBufAllocator.DEFAULT.directBuffer(4096);
        try {
            assertTrue(off.isDirect());
            assertNull(NettyBed.registered(off), "a buffer taken off any loop is in a loop's pool");
        } finally {
            off.release();
        }
        ByteBuf heap = RdmaByteBufAllocator.DEFAULT.heapBuffer(16);
        assertFalse(heap.isDirect());
        heap.release();
    }

    @Test
    void aServerChannelTakesItsBacklog() {
        RdmaServerSocketChannel ch = new RdmaServerSocketChannel();
        assertTrue(ch.config().setOption(ChannelOption.SO_BACKLOG, 7));
        assertEquals(7, ch.config().getOption(ChannelOption.SO_BACKLOG));
        assertThrows(IllegalArgumentException.class, () -> ch.config().setBacklog(-1));
        assertThrows(UnsupportedOperationException.class, () -> ch.config().setReuseAddress(true));
        assertFalse(ch.isActive());
    }
}
