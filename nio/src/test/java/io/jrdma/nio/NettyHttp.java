package io.jrdma.nio;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/1.1 through Netty's codec (HttpServerCodec and HttpClientCodec, each behind an HttpObjectAggregator), unchanged,
 * on an event loop of a jrdma-nio provider: one keep-alive connection carries POSTs of bodies from 0 bytes to 4 MiB,
 * which the server echoes with their SHA-256, a GET for a path it does not serve, and a last request that asks it to
 * close the connection. The client checks every status, header and body byte.
 */
final class NettyHttp {
    private static final int MAX_CONTENT = 8 << 20;
    private static final String SERVED = "X-Request-Number";
    private static final String DIGEST = "X-Body-SHA-256";

    private NettyHttp() {
    }

    /** The channels of one run, closed by then, so that the caller can see which kind they were. */
    record Channels(ServerSocketChannel server, SocketChannel client) {
    }

    /** Runs the exchange through a server bound to {@code host}. */
    static Channels run(RdmaSelectorProvider provider, String host) throws Exception {
        EventLoopGroup group = new NioEventLoopGroup(2, (Runnable r) -> Thread.ofPlatform().daemon().unstarted(r),
                provider);
        try {
            ExposedServerSocketChannel server = (ExposedServerSocketChannel) new ServerBootstrap().group(group)
                    .channelFactory(() -> new ExposedServerSocketChannel(provider))
                    .childHandler(pipeline(ch -> ch.pipeline().addLast(new HttpServerCodec(),
                            new HttpObjectAggregator(MAX_CONTENT), new Responder())))
                    .bind(host, 0).sync().channel();
            BlockingQueue<Object> responses = new LinkedBlockingQueue<>();
            NettyEcho.ExposedSocketChannel client = (NettyEcho.ExposedSocketChannel) new Bootstrap().group(group)
                    .channelFactory(() -> new NettyEcho.ExposedSocketChannel(provider))
                    .handler(pipeline(ch -> ch.pipeline().addLast(new HttpClientCodec(),
                            new HttpObjectAggregator(MAX_CONTENT), new Collector(responses))))
                    .connect(server.localAddress()).sync().channel();
            exchange(client, responses);
            server.close().sync();
            return new Channels(server.nio(), client.nio());
        } finally {
            group.shutdownGracefully().sync();
        }
    }

    /** The requests, one at a time on {@code client}'s connection, and the checks of their responses. */
    private static void exchange(Channel client, BlockingQueue<Object> responses) throws Exception {
        int served = 0;
        for (int size : Echo.BODY_SIZES) {
            byte[] body = Echo.pattern(size, size);
            FullHttpRequest post = request(HttpMethod.POST, "/echo?size=" + size, body);
            post.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
            FullHttpResponse response = roundTrip(client, post, responses);
            try {
                assertEquals(HttpResponseStatus.OK, response.status(), "POST of " + size);
                assertEquals(String.valueOf(++served), response.headers().get(SERVED), "all on one connection");
                assertEquals(Echo.sha256(body), response.headers().get(DIGEST), "the server's digest of " + size);
                assertEquals(HttpHeaderValues.APPLICATION_OCTET_STREAM.toString(),
                        response.headers().get(HttpHeaderNames.CONTENT_TYPE));
                assertEquals(size, HttpUtil.getContentLength(response));
                assertArrayEquals(body, ByteBufUtil.getBytes(response.content()), "the echo of " + size);
            } finally {
                response.release();
            }
        }
        FullHttpResponse missing = roundTrip(client, request(HttpMethod.GET, "/nowhere", new byte[0]), responses);
        try {
            assertEquals(HttpResponseStatus.NOT_FOUND, missing.status());
            assertEquals(String.valueOf(++served), missing.headers().get(SERVED));
            assertEquals("no /nowhere here\n", missing.content().toString(StandardCharsets.US_ASCII));
        } finally {
            missing.release();
        }
        FullHttpRequest last = request(HttpMethod.POST, "/echo", new byte[] {42});
        last.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        FullHttpResponse closing = roundTrip(client, last, responses);
        try {
            assertEquals(HttpResponseStatus.OK, closing.status());
            assertEquals(String.valueOf(++served), closing.headers().get(SERVED));
            assertArrayEquals(new byte[] {42}, ByteBufUtil.getBytes(closing.content()));
            assertFalse(HttpUtil.isKeepAlive(closing), "the server answers a close with a close");
        } finally {
            closing.release();
        }
        assertTrue(client.closeFuture().await(60, TimeUnit.SECONDS), "the server closed the connection");
    }

    private static FullHttpRequest request(HttpMethod method, String uri, byte[] body) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri,
                Unpooled.wrappedBuffer(body));
        request.headers().set(HttpHeaderNames.HOST, "jrdma");
        HttpUtil.setContentLength(request, body.length);
        return request;
    }

    /** Sends {@code request} and waits for its response: the caller releases it. */
    private static FullHttpResponse roundTrip(Channel client, FullHttpRequest request, BlockingQueue<Object> responses)
            throws Exception {
        client.writeAndFlush(request).sync();
        Object next = responses.poll(120, TimeUnit.SECONDS);
        assertNotNull(next, "no response to " + request.method() + " " + request.uri() + " in time");
        if (next instanceof Throwable failure) {
            throw new AssertionError("client pipeline failed", failure);
        }
        return (FullHttpResponse) next;
    }

    private static ChannelInitializer<Channel> pipeline(Consumer<Channel> setUp) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                setUp.accept(ch);
            }
        };
    }

    /**
     * The server's handler, one per connection: echoes a POST to /echo with its digest, answers anything else with
     * 404; numbers the requests of its connection, and closes it after a response when the request asked to.
     */
    private static final class Responder extends SimpleChannelInboundHandler<FullHttpRequest> {
        private int served;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            byte[] body = ByteBufUtil.getBytes(request.content());
            FullHttpResponse response;
            if (request.method().equals(HttpMethod.POST) && request.uri().startsWith("/echo")) {
                response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        Unpooled.wrappedBuffer(body));
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, request.headers().get(HttpHeaderNames.CONTENT_TYPE,
                        HttpHeaderValues.APPLICATION_OCTET_STREAM.toString()));
                response.headers().set(DIGEST, Echo.sha256(body));
            } else {
                response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND,
                        Unpooled.copiedBuffer("no " + request.uri() + " here\n", StandardCharsets.US_ASCII));
            }
            response.headers().set(SERVED, ++served);
            HttpUtil.setContentLength(response, response.content().readableBytes());
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            HttpUtil.setKeepAlive(response, keepAlive);
            var written = ctx.writeAndFlush(response);
            if (!keepAlive) {
                written.addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** The client's handler: queues each whole response, a failure of the pipeline, or the end of the connection. */
    private static final class Collector extends SimpleChannelInboundHandler<FullHttpResponse> {
        private final BlockingQueue<Object> responses;

        Collector(BlockingQueue<Object> responses) {
            super(false);
            this.responses = responses;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            responses.add(response);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            responses.add(cause);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            responses.add(new IllegalStateException("the connection closed"));
        }
    }

    /** Netty's server channel, with its NIO channel in view. */
    static final class ExposedServerSocketChannel extends NioServerSocketChannel {
        ExposedServerSocketChannel(RdmaSelectorProvider provider) {
            super(provider);
        }

        ServerSocketChannel nio() {
            return javaChannel();
        }
    }
}
