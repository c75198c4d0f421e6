package io.jrdma.benchmarks;

import io.jrdma.bindings.ibverbs.ibv_send_wr;
import io.jrdma.bindings.ibverbs.ibv_sge;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * The floor under the data path: filling an RDMA WRITE work request and its scatter/gather entry in place through
 * the generated layouts. Posting adds one downcall on top of this.
 *
 * <p>{@link #fillViaNestedAccessors} reaches {@code wr.rdma} through the generated union getters, which slice a new
 * segment per call; {@link #fillViaFlatOffsets} writes the same fields at offsets summed once from the generated
 * {@code $offset()} constants, which is what the data path must do to allocate nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class WorkRequestLayoutBenchmark {
    private MemorySegment wr;
    private MemorySegment sge;
    private long id;

    private static final long RDMA_REMOTE_ADDR = ibv_send_wr.wr$offset() + ibv_send_wr.wr.rdma$offset()
            + ibv_send_wr.wr.rdma.remote_addr$offset();
    private static final long RDMA_RKEY = ibv_send_wr.wr$offset() + ibv_send_wr.wr.rdma$offset()
            + ibv_send_wr.wr.rdma.rkey$offset();

    @Setup
    public void setup() {
        Arena arena = Arena.ofAuto();
        wr = ibv_send_wr.allocate(arena);
        sge = ibv_sge.allocate(arena);
    }

    @Benchmark
    public MemorySegment fillViaNestedAccessors() {
        fillCommon();
        MemorySegment rdma = ibv_send_wr.wr.rdma(ibv_send_wr.wr(wr));
        ibv_send_wr.wr.rdma.remote_addr(rdma, 0x7f00_0000_2000L);
        ibv_send_wr.wr.rdma.rkey(rdma, 0x5678);
        return wr;
    }

    @Benchmark
    public MemorySegment fillViaFlatOffsets() {
        fillCommon();
        wr.set(ibv_send_wr.wr.rdma.remote_addr$layout(), RDMA_REMOTE_ADDR, 0x7f00_0000_2000L);
        wr.set(ibv_send_wr.wr.rdma.rkey$layout(), RDMA_RKEY, 0x5678);
        return wr;
    }

    private void fillCommon() {
        ibv_sge.addr(sge, 0x7f00_0000_1000L + (id & 0xfff));
        ibv_sge.length(sge, 64);
        ibv_sge.lkey(sge, 0x1234);
        ibv_send_wr.wr_id(wr, id++);
        ibv_send_wr.next(wr, MemorySegment.NULL);
        ibv_send_wr.sg_list(wr, sge);
        ibv_send_wr.num_sge(wr, 1);
        ibv_send_wr.opcode(wr, ibverbs_h.IBV_WR_RDMA_WRITE());
        ibv_send_wr.send_flags(wr, ibverbs_h.IBV_SEND_SIGNALED());
    }
}
