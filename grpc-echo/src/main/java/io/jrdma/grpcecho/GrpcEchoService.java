package io.jrdma.grpcecho;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A gRPC service with a unary method that returns its request and a bidirectional streaming method that returns
 * each message of its stream, and the client side that calls both and checks every byte of each answer. Built on
 * gRPC's API alone (no generated code, no transport), so that the same service and checks run over any transport a
 * test wires into grpc-netty. The benchmarks call the unary method through {@link #unary()}.
 */
public final class GrpcEchoService {
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
    private static final long DEADLINE_SECONDS = 60;

    private GrpcEchoService() {
    }

    /**
     * The service, for a server builder's {@code addService}.
     *
     * @return the service definition of both methods
     */
    public static ServerServiceDefinition definition() {
        return ServerServiceDefinition.builder("echo")
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((byte[] request, StreamObserver<byte[]> response) -> {
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
                })).build();
    }

    /**
     * The unary method, for a client that makes its own calls (a benchmark's, for one): its request and answer are
     * byte arrays, the answer the request.
     *
     * @return the method's descriptor
     */
    public static MethodDescriptor<byte[], byte[]> unary() {
        return ECHO;
    }

    /**
     * Makes {@code calls} unary calls of about 100 kB through {@code channel}, then streams as many messages of 1 B
     * to about 300 kB through one streaming call; each answer must be its request, byte for byte.
     *
     * @param channel a channel to a server of {@link #definition()}
     * @param calls   the number of unary calls and of streamed messages
     * @throws Exception        if a call fails or times out
     * @throws AssertionError   if an answer differs from its request
     */
    public static void check(ManagedChannel channel, int calls) throws Exception {
        for (int n = 0; n < calls; n++) {
            byte[] request = pattern(100_000 + n, n);
            assertArrayEquals(request, ClientCalls.blockingUnaryCall(channel, ECHO,
                    CallOptions.DEFAULT.withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS), request), "call " + n);
        }
        List<byte[]> answers = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(
                channel.newCall(STREAM, CallOptions.DEFAULT.withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS)),
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
        for (int n = 0; n < calls; n++) {
            requests.onNext(pattern(1 + n * 15_000, n));
        }
        requests.onCompleted();
        done.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
        assertEquals(calls, answers.size(), "answers to the streamed messages");
        for (int n = 0; n < calls; n++) {
            assertArrayEquals(pattern(1 + n * 15_000, n), answers.get(n), "streamed message " + n);
        }
    }

    /** {@code size} bytes that differ with {@code seed} and along the array, so a shifted or mixed answer shows. */
    private static byte[] pattern(int size, int seed) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (i * 31 + seed * 7 + (i >>> 8));
        }
        return bytes;
    }
}
