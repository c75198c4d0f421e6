package io.jrdma.benchmarks.netty;

import io.jrdma.benchmarks.PeerOptions;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PipelineFloorTest {
    private static NettyPerf.Plan plan() {
        return new NettyPerf.Plan(NettyPerf.Kind.LAT, PerfTransport.PIPELINE,
                new PeerOptions(null, "127.0.0.1", 18800, Map.of(64, 1000), 0, 1), 0);
    }

    @Test
    void everyRoundTripOfARunGoesThroughBothPipelines() throws Exception {
        long[] stamps = new long[1000];
        try (PipelineFloor floor = new PipelineFloor(new Driver(plan()), new NettyPerf.Echo())) {
            long nanos = floor.run(64, 1000, stamps);
            assertTrue(nanos > 0);
            for (int i = 1; i < stamps.length; i++) {
                assertTrue(stamps[i] >= stamps[i - 1] && stamps[i] > 0, "round trip " + i + " was not stamped");
            }
            // A second run on the same channels, as the warm-up and the timed run are.
            floor.run(4096, 10, new long[10]);
        }
    }

    @Test
    void aServerThatAnswersNothingEndsTheRunInsteadOfSpinning() {
        ChannelInboundHandlerAdapter silent = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((ByteBuf) msg).release();
            }
        };
        try (PipelineFloor floor = new PipelineFloor(new Driver(plan()), silent)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> floor.run(64, 10, new long[10]));
            assertEquals("neither side wrote, and the run is not over", e.getMessage());
        }
    }
}
