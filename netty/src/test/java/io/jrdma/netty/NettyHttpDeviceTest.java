package io.jrdma.netty;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netty's HTTP/1.1 codec, server and client, over the transport with nothing changed but the loop groups and channel
 * classes: keep-alive connections, each request's body echoed back and compared byte for byte.
 */
@RdmaDeviceTest
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class NettyHttpDeviceTest {
    static {
        LeakRecorder.install();
    }

    private static final int MAX_BODY = 256 << 10;
    /** The first requests' body sizes, around the transport's message size (4 KiB); random sizes follow. */
    private static final int[] SIZES = {0, 1, 1000, 4095, 4096, 4097, 10_000, 65_536, 200_000};
    private static final long WAIT_SECONDS = 120;

    @Test
    void keepAliveRequestsOfEverySizeComeBackByteForByte(Device device) throws Exception {
        try (NettyBed bed = new NettyBed(device, 2)) {
            Channel server = bed.serve(() -> new ChannelHandler[] {
                    new HttpServerCodec(), new HttpObjectAggregator(MAX_BODY), new EchoBody()}, true);
            List<Channel> clients = new ArrayList<>();
            List<BlockingQueue<FullHttpResponse>> answers = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                BlockingQueue<FullHttpResponse> answer = new LinkedBlockingQueue<>();
                answers.add(answer);
                clients.add(bed.connect(server, () -> new ChannelHandler[] {
                        new HttpClientCodec(), new HttpObjectAggregator(MAX_BODY), new Collect(answer)}));
            }
            SplittableRandom random = new SplittableRandom(7);
            for (int i = 0; i < 100; i++) {
                for (int c = 0; c < clients.size(); c++) {
                    byte[] body = new byte[i < SIZES.length ? SIZES[i] : random.nextInt(MAX_BODY)];
                    random.nextBytes(body);
                    FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                            "/echo/" + i, Unpooled.wrappedBuffer(body));
                    HttpUtil.setContentLength(request, body.length);
                    HttpUtil.setKeepAlive(request, true);
                    clients.get(c).writeAndFlush(request);
                    FullHttpResponse response = answers.get(c).poll(WAIT_SECONDS, TimeUnit.SECONDS);
                    assertNotNull(response, "no answer to request " + i + " of connection " + c + " (a body of "
                            + body.length + " bytes)");
                    try {
                        assertEquals(HttpResponseStatus.OK, response.status());
                        assertTrue(HttpUtil.isKeepAlive(response), "the server did not keep the connection");
                        assertEquals("/echo/" + i, response.headers().get("x-uri"));
                        assertArrayEquals(body, ByteBufUtil.getBytes(response.content()),
                                "request " + i + " of connection " + c + " came back with other bytes");
                    } finally {
                        response.release();
                    }
                }
            }
            for (Channel c : clients) {
                c.close().sync();
            }
            server.close().sync();
        }
        assertEquals(List.of(), LeakRecorder.leaksAfterCollection(), "Netty's leak detector found leaked buffers");
    }

    /** Answers each request with its own body and URI, keeping the connection open. */
    private static final class EchoBody extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            ByteBuf body = request.content().retainedDuplicate();
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
            response.headers().set("x-uri", request.uri());
            HttpUtil.setContentLength(response, body.readableBytes());
            HttpUtil.setKeepAlive(response, HttpUtil.isKeepAlive(request));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
            ctx.writeAndFlush(response);
        }
    }

    /** Hands each response over to the test thread, which releases it. */
    private static final class Collect extends SimpleChannelInboundHandler<FullHttpResponse> {
        private final BlockingQueue<FullHttpResponse> answers;

        Collect(BlockingQueue<FullHttpResponse> answers) {
            super(false);
            this.answers = answers;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            answers.add(response);
        }
    }
}
