package io.jrdma.nio;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * gRPC calls through grpc-netty, unchanged, on event loops and channels of a jrdma-nio provider: a unary method
 * that returns its request and a bidirectional streaming method that returns each message of its stream, and a
 * client that checks every byte of each answer.
 */
final class GrpcEcho {
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    private static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("echo/Echo")
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    private static final MethodDescriptor<byte[], byte[]> STREAM = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.BIDI_STREAMING).setFullMethodName("echo/Stream")
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

    private GrpcEcho() {
    }

    /**
     * Makes {@code calls} unary calls of about 100 kB to a server bound to {@code host}, then streams as many
     * messages of up to about 300 kB through one streaming call; the client's NIO channels.
     */
    static List<SocketChannel> run(RdmaSelectorProvider provider, String host, int calls) throws Exception {
        EventLoopGroup group = new NioEventLoopGroup(2, (Runnable r) -> Thread.ofPlatform().daemon().unstarted(r),
                provider);
        List<NettyEcho.ExposedSocketChannel> clientChannels = new CopyOnWriteArrayList<>();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(host, 0))
                .bossEventLoopGroup(group).workerEventLoopGroup(group)
                .channelFactory(() -> new NioServerSocketChannel(provider))
                .addService(ServerServiceDefinition.builder("echo").addMethod(ECHO,
                        ServerCalls.asyncUnaryCall((byte[] request, StreamObserver<byte[]> response) -> {
                            response.onNext(request);
                            response.onCompleted();
                        }))
                        .addMethod(STREAM, ServerCalls.asyncBidiStreamingCall(response -> new StreamObserver<>() {
                            @Override
                            public void onNext(byte[] message) {
                                response.onNext(message);
                            }

                            @Override
                            public void onError(Throwable t) {
                                response.onError(t);
                            }

                            @Override
                            public void onCompleted() {
                                response.onCompleted();
                            }
                        })).build())
                .build().start();
        ManagedChannel channel = NettyChannelBuilder.forAddress(host, server.getPort()).usePlaintext()
                .eventLoopGroup(group).channelFactory(() -> {
                    NettyEcho.ExposedSocketChannel c = new NettyEcho.ExposedSocketChannel(provider);
                    clientChannels.add(c);
                    return c;
                }).build();
        try {
            for (int n = 0; n < calls; n++) {
                byte[] request = Echo.pattern(100_000 + n, n);
                assertArrayEquals(request, ClientCalls.blockingUnaryCall(channel, ECHO,
                        CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), request), "call " + n);
            }
            stream(channel, calls);
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            group.shutdownGracefully().sync();
        }
        return clientChannels.stream().map(NettyEcho.ExposedSocketChannel::nio).toList();
    }

    /** One streaming call of {@code messages} messages of 1 B to about 300 kB, each answer checked byte by byte. */
    private static void stream(ManagedChannel channel, int messages) throws Exception {
        List<byte[]> answers = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(
                channel.newCall(STREAM, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS)),
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] answer) {
                        answers.add(answer);
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(null);
                    }
                });
        for (int n = 0; n < messages; n++) {
            requests.onNext(Echo.pattern(1 + n * 15_000, n));
        }
        requests.onCompleted();
        done.get(60, TimeUnit.SECONDS);
        assertEquals(messages, answers.size(), "answers to the streamed messages");
        for (int n = 0; n < messages; n++) {
            assertArrayEquals(Echo.pattern(1 + n * 15_000, n), answers.get(n), "streamed message " + n);
        }
    }
}
