package io.jrdma.benchmarks.netty;

import io.jrdma.benchmarks.netty.NettyPerf.Kind;
import io.jrdma.benchmarks.netty.NettyPerf.Plan;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The client's pipeline in {@link NettyPerf}: one run at a time, started on the channel's loop and driven by what
 * comes back, so that the measured path is Netty's own (write, flush, read) and nothing crosses threads within a run.
 */
final class Driver extends ChannelInboundHandlerAdapter {
    private final Plan plan;
    private ChannelHandlerContext ctx;
    private ByteBuf payload;
    private int size;
    private int n;
    private long[] stamps;
    private int sent;
    private int echoed;
    /** Bytes of the message being echoed back that arrived so far. */
    private long partial;
    private long start;
    private CompletableFuture<Long> done;

    Driver(Plan plan) {
        this.plan = plan;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        ctx = context;
    }

    /**
     * One run of {@code n} messages of {@code size} bytes; blocks until it ends.
     *
     * @param stamps where a latency run writes the start of each round trip, or null
     * @return the run's time in nanoseconds
     */
    long run(Channel channel, int size, int n, long[] stamps) throws Exception {
        return begin(channel, size, n, stamps).get(30, TimeUnit.MINUTES);
    }

    /** Hands the start of a run to the channel's loop; the run's time in nanoseconds completes what it returns. */
    CompletableFuture<Long> begin(Channel channel, int size, int n, long[] stamps) {
        CompletableFuture<Long> run = new CompletableFuture<>();
        channel.eventLoop().execute(() -> start(size, n, stamps, run));
        return run;
    }

    private void start(int bytes, int count, long[] times, CompletableFuture<Long> run) {
        if (payload != null) {
            payload.release();
        }
        payload = NettyPerf.payload(ctx.alloc(), bytes);
        size = bytes;
        n = count;
        stamps = times;
        sent = 0;
        echoed = 0;
        partial = 0;
        done = run;
        if (!ctx.channel().isActive()) {
            channelInactive(ctx);
            return;
        }
        start = System.nanoTime();
        switch (plan.kind()) {
            case LAT -> {
                stamp(0);
                send();
            }
            case RATE -> {
                while (sent < Math.min(plan.options().depth(), n)) {
                    send();
                }
            }
            case STREAM -> stream();
        }
        ctx.flush();
    }

    private void send() {
        ctx.write(payload.retainedDuplicate(), ctx.voidPromise());
        sent++;
    }

    private void stamp(int i) {
        if (stamps != null) {
            stamps[i] = System.nanoTime();
        }
    }

    /** As many messages as the channel takes before it turns unwritable; the rest when it turns writable again. */
    private void stream() {
        while (sent < n && ctx.channel().isWritable()) {
            send();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        ByteBuf buffer = (ByteBuf) msg;
        int bytes = buffer.readableBytes();
        buffer.release();
        if (plan.kind() == Kind.STREAM) {
            finish();
            return;
        }
        partial += bytes;
        while (partial >= size) {
            partial -= size;
            echoed++;
            if (echoed == n) {
                finish();
            } else if (plan.kind() == Kind.LAT) {
                stamp(echoed);
                send();
                ctx.flush();
            } else if (sent < n) {
                send();
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext context) {
        ctx.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) {
        if (plan.kind() == Kind.STREAM && done != null && !done.isDone()) {
            stream();
            ctx.flush();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        if (done != null) {
            done.completeExceptionally(new IllegalStateException("the connection closed after " + echoed + " of " + n
                    + " messages"));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        if (done != null) {
            done.completeExceptionally(cause);
        }
        context.close();
    }

    private void finish() {
        done.complete(System.nanoTime() - start);
    }
}
