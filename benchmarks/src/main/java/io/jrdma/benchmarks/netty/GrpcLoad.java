package io.jrdma.benchmarks.netty;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerTransportFilter;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.jrdma.grpcecho.GrpcEchoService;
import io.netty.channel.EventLoopGroup;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@code grpc} test of {@link NettyPerf}: grpc-netty's unary calls one after another on one channel, each
 * request SIZE bytes and its answer the same bytes, checked. Both sides run gRPC's callbacks on their event loop
 * ({@code directExecutor()}, as gRPC's own benchmarks do for latency), so a call's time is the transport's and
 * gRPC's, with no hand-off to another thread.
 */
final class GrpcLoad implements StreamObserver<byte[]> {
    private final ManagedChannel channel;
    private final EventLoopGroup group;
    private byte[] request;
    private int n;
    private long[] stamps;
    private int calls;
    private boolean answered;
    private long start;
    private CompletableFuture<Long> done;

    /** A client of the server at {@code address}, on {@code group}'s loop; it connects on its first call. */
    GrpcLoad(PerfTransport.Side side, EventLoopGroup group, InetSocketAddress address) {
        this.group = group;
        channel = NettyChannelBuilder.forAddress(address).usePlaintext().eventLoopGroup(group)
                .channelFactory(side.clients()).directExecutor().build();
    }

    /** Serves the echo service on {@code group} until the first client's connection ends. */
    static void serve(PerfTransport.Side side, EventLoopGroup group, InetSocketAddress address) throws Exception {
        CompletableFuture<Void> served = new CompletableFuture<>();
        Server server = NettyServerBuilder.forAddress(address).bossEventLoopGroup(group).workerEventLoopGroup(group)
                .channelFactory(side.servers()).directExecutor().addService(GrpcEchoService.definition())
                .addTransportFilter(new ServerTransportFilter() {
                    @Override
                    public void transportTerminated(Attributes transportAttrs) {
                        served.complete(null);
                    }
                }).build().start();
        System.err.println("netty-perf: grpc listening on " + server.getListenSockets());
        try {
            served.get();
        } finally {
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /**
     * One run of {@code n} calls with {@code size}-byte requests, each made when the one before is answered; blocks
     * until the last is.
     *
     * @param stamps where a latency run writes the start of each call, or null
     * @return the run's time in nanoseconds
     */
    long run(int size, int n, long[] stamps) throws Exception {
        byte[] bytes = NettyPerf.payload(size);
        CompletableFuture<Long> run = new CompletableFuture<>();
        group.next().execute(() -> {
            request = bytes;
            this.n = n;
            this.stamps = stamps;
            calls = 0;
            done = run;
            start = System.nanoTime();
            call();
        });
        return run.get(30, TimeUnit.MINUTES);
    }

    /** Ends the channel and its connection. */
    void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }

    private void call() {
        if (stamps != null) {
            stamps[calls] = System.nanoTime();
        }
        answered = false;
        ClientCalls.asyncUnaryCall(channel.newCall(GrpcEchoService.unary(), CallOptions.DEFAULT), request, this);
    }

    @Override
    public void onNext(byte[] answer) {
        if (!Arrays.equals(answer, request)) {
            done.completeExceptionally(new IllegalStateException("call " + calls + ": the answer (" + answer.length
                    + " bytes) is not the request (" + request.length + " bytes)"));
        }
        answered = true;
    }

    @Override
    public void onError(Throwable t) {
        done.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
        if (done.isDone()) {
            return;
        }
        if (!answered) {
            done.completeExceptionally(new IllegalStateException("call " + calls + " completed without an answer"));
        } else if (++calls == n) {
            done.complete(System.nanoTime() - start);
        } else {
            call();
        }
    }
}
