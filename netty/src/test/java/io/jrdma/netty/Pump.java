package io.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;

/**
 * Writes a seeded random byte stream of {@code total} bytes, in writes of sizes drawn from {@code sizes}, while the
 * channel is writable: it stops when the channel becomes unwritable and goes on when it is writable again. Keeps
 * the CRC-32 of what it wrote.
 */
class Pump extends ChannelInboundHandlerAdapter {
    private final SplittableRandom random;
    private final long total;
    private final int[] sizes;
    private final boolean flushEach;
    private final boolean closeAtEnd;
    private final CRC32 crc = new CRC32();
    volatile long sent;
    /** Completes with the bytes written so far the first time the channel turns unwritable. */
    final CompletableFuture<Long> stalled = new CompletableFuture<>();
    /** Completes with the CRC-32 of the whole stream once its last write succeeded (all earlier ones did then). */
    final CompletableFuture<Long> finished = new CompletableFuture<>();

    /**
     * @param flushEach  flush after every write (else after each writable stretch), so that nothing but a refused
     *                   send can leave bytes in the outbound buffer and make the channel unwritable
     * @param closeAtEnd close the channel once the last write is done
     */
    Pump(long seed, long total, int[] sizes, boolean flushEach, boolean closeAtEnd) {
        this.random = new SplittableRandom(seed);
        this.total = total;
        this.sizes = sizes;
        this.flushEach = flushEach;
        this.closeAtEnd = closeAtEnd;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        pump(ctx);
        ctx.fireChannelActive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            pump(ctx);
        } else {
            stalled.complete(sent);
        }
        ctx.fireChannelWritabilityChanged();
    }

    private void pump(ChannelHandlerContext ctx) {
        while (ctx.channel().isActive() && ctx.channel().isWritable() && sent < total) {
            int n = (int) Math.min(sizes[random.nextInt(sizes.length)], total - sent);
            byte[] data = new byte[n];
            random.nextBytes(data);
            crc.update(data);
            ByteBuf buf = ctx.alloc().buffer(n).writeBytes(data);
            sent += n;
            boolean last = sent == total;
            if (flushEach || last) {
                ChannelFuture written = ctx.writeAndFlush(buf);
                if (last) {
                    long value = crc.getValue();
                    written.addListener(f -> {
                        if (f.isSuccess()) {
                            finished.complete(value);
                        } else {
                            finished.completeExceptionally(f.cause());
                        }
                    });
                }
                if (last && closeAtEnd) {
                    written.addListener(ChannelFutureListener.CLOSE);
                }
            } else {
                ctx.write(buf);
            }
        }
        ctx.flush();
    }
}
