package io.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;

import java.util.zip.CRC32;

/**
 * Reads a stream to its end with half-closure allowed, then answers with the stream's CRC-32 (8 bytes, big-endian)
 * on the same channel and closes it.
 */
final class CrcAnswer extends ChannelInboundHandlerAdapter {
    private final CRC32 crc = new CRC32();

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            crc.update(buf.nioBuffer());
        } finally {
            buf.release();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            ctx.writeAndFlush(ctx.alloc().buffer(8).writeLong(crc.getValue()))
                    .addListener(ChannelFutureListener.CLOSE);
        }
        ctx.fireUserEventTriggered(evt);
    }
}
