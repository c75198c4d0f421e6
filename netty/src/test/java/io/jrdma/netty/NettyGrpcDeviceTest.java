package io.jrdma.netty;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.jrdma.grpcecho.GrpcEchoService;
import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * grpc-netty over the transport with nothing changed but the event loop groups and channel types: unary and
 * bidirectional streaming calls, every byte of every answer checked.
 */
@RdmaDeviceTest
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class NettyGrpcDeviceTest {
    @Test
    void unaryAndStreamingCallsAnswerByteForByte(Device device) throws Exception {
        try (NettyBed bed = new NettyBed(device, 2).childLoops(2, NettyBed.OPTIONS)) {
            // As over any Netty transport: a boss loop accepts, the worker group's loops take the connections.
            Server server = NettyServerBuilder.forAddress(new InetSocketAddress(bed.ip, 0))
                    .bossEventLoopGroup(bed.serverGroup).workerEventLoopGroup(bed.childGroup)
                    .channelType(RdmaServerSocketChannel.class)
                    .addService(GrpcEchoService.definition())
                    .build().start();
            ManagedChannel channel = NettyChannelBuilder.forAddress(new InetSocketAddress(bed.ip, server.getPort()))
                    .usePlaintext().eventLoopGroup(bed.clientGroup).channelType(RdmaSocketChannel.class).build();
            try {
                GrpcEchoService.check(channel, 20);
            } finally {
                channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
                server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }
        }
    }
}
