package io.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;

/**
 * Reads a byte stream to its end: counts the bytes, keeps their CRC-32, releases each buffer. {@link #done}
 * completes with the CRC once {@code expected} bytes arrived, or exceptionally if the channel fails or closes first
 * or more bytes arrive.
 */
class Tally extends ChannelInboundHandlerAdapter {
    private final long expected;
    private final CRC32 crc = new CRC32();
    volatile long received;
    /** What {@code exceptionCaught} brought, if it came. */
    volatile Throwable caught;
    final CompletableFuture<Long> done = new CompletableFuture<>();
    final CompletableFuture<Channel> active = new CompletableFuture<>();

    Tally(long expected) {
        this.expected = expected;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        active.complete(ctx.channel());
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            crc.update(buf.nioBuffer());
            received += buf.readableBytes();
        } finally {
            buf.release();
        }
        if (received == expected) {
            done.complete(crc.getValue());
        } else if (received > expected) {
            done.completeExceptionally(new IOException(received + " bytes arrived, " + expected + " were sent"));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        caught = cause;
        done.completeExceptionally(cause);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        done.completeExceptionally(new IOException("closed after " + received + " of " + expected + " bytes"));
        ctx.fireChannelInactive();
    }
}
