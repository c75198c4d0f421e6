package io.jrdma.benchmarks.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The client of {@link NettyPerf}'s {@code http} test: keep-alive connections on one event loop, each with one
 * request out at a time (as a load generator such as wrk keeps them), a new request on a connection as soon as its
 * answer is in, until a run's requests are answered. Every answer is checked: status 200, kept alive, a body of
 * the size asked for.
 */
final class HttpLoad {
    private final List<Channel> connections;
    private String uri;
    private int size;
    private int n;
    private int sent;
    private int answered;
    private long start;
    private CompletableFuture<Long> done;

    /**
     * @param connections the channels, on one loop, their pipelines ending in an {@link #answers()} handler; filled
     *                    by the caller before the first run
     */
    HttpLoad(List<Channel> connections) {
        this.connections = connections;
    }

    /** The last handler of each connection's pipeline, after Netty's HTTP client codec and aggregator. */
    SimpleChannelInboundHandler<FullHttpResponse> answers() {
        return new Answers();
    }

    /**
     * One run of {@code n} requests for {@code size}-byte bodies over all connections; blocks until they are answered.
     *
     * @return the run's time in nanoseconds
     */
    long run(int size, int n) throws Exception {
        CompletableFuture<Long> run = new CompletableFuture<>();
        connections.getFirst().eventLoop().execute(() -> start(size, n, run));
        return run.get(30, TimeUnit.MINUTES);
    }

    private void start(int bytes, int count, CompletableFuture<Long> run) {
        uri = "/" + bytes;
        size = bytes;
        n = count;
        sent = 0;
        answered = 0;
        done = run;
        start = System.nanoTime();
        for (Channel c : connections) {
            if (sent < n) {
                request(c);
            }
        }
    }

    private void request(Channel c) {
        DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
        request.headers().set(HttpHeaderNames.HOST, "netty-perf");
        HttpUtil.setKeepAlive(request, true);
        sent++;
        c.writeAndFlush(request, c.voidPromise());
    }

    private final class Answers extends SimpleChannelInboundHandler<FullHttpResponse> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            if (done == null || done.isDone()) {
                return;
            }
            if (!response.status().equals(HttpResponseStatus.OK) || !HttpUtil.isKeepAlive(response)
                    || response.content().readableBytes() != size) {
                done.completeExceptionally(new IllegalStateException("answer " + answered + ": " + response.status()
                        + ", keep-alive " + HttpUtil.isKeepAlive(response) + ", " + response.content().readableBytes()
                        + " bytes for " + uri));
                return;
            }
            if (++answered == n) {
                done.complete(System.nanoTime() - start);
            } else if (sent < n) {
                request(ctx.channel());
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (done != null) {
                done.completeExceptionally(new IllegalStateException("a connection closed after " + answered + " of "
                        + n + " answers"));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (done != null) {
                done.completeExceptionally(cause);
            }
            ctx.close();
        }
    }
}
