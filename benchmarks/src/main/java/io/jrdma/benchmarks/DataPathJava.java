package io.jrdma.benchmarks;

import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.ThreadConfinement;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.nativetest.TestProvider;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * jrdma's data path against the test provider, whose ops do almost nothing: what is measured is the Java side
 * (checks, the close guard, the downcall). {@link DataPathC} makes the same calls from C; the difference is what
 * the binding adds. Each method is one operation; the requests are the ones {@code test-provider.c} builds for C.
 * Every benchmark runs once per {@link ThreadConfinement}: a shared queue pair and completion queue pay the in-flight
 * counter's atomics, a confined one a thread check.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class DataPathJava {
    @Param({"SHARED", "CONFINED"})
    public ThreadConfinement confinement;

    private TestProvider tp;
    private QueuePair qp;
    private CompletionQueue cq;
    private SendWorkRequest send;
    private SendWorkRequest chain;
    private ReceiveWorkRequest receive;
    private WorkCompletions one;
    private WorkCompletions batch;

    /** Runs on the benchmark's thread (JMH's thread-scoped state), which thus owns a confined provider's objects. */
    @Setup(Level.Trial)
    public void setUp() throws RdmaException {
        tp = TestProvider.open(confinement);
        qp = tp.queuePair();
        cq = tp.completionQueue();
        MemoryRegion mr = tp.memoryRegion();
        send = signaledSend(1, mr);
        chain = signaledSend(0, mr);
        SendWorkRequest last = chain;
        for (int i = 1; i < TestProvider.CHAIN; i++) {
            SendWorkRequest next = signaledSend(i, mr);
            last.next(next);
            last = next;
        }
        receive = new ReceiveWorkRequest(1).id(1).add(mr, 0, 64);
        one = new WorkCompletions(1);
        batch = new WorkCompletions(TestProvider.CHAIN);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws RdmaException {
        tp.close();
    }

    private static SendWorkRequest signaledSend(long id, MemoryRegion mr) {
        return new SendWorkRequest(1).id(id).opcode(SendOpcode.SEND).signaled(true).add(mr, 0, 64);
    }

    @Benchmark
    public void postSend() throws RdmaException {
        qp.postSend(send);
    }

    @Benchmark
    public void postSendChain16() throws RdmaException {
        qp.postSend(chain);
    }

    @Benchmark
    public void postReceive() throws RdmaException {
        qp.postReceive(receive);
    }

    @Benchmark
    public long poll1() throws RdmaException {
        return consume(one, cq.poll(one));
    }

    @Benchmark
    public long poll16() throws RdmaException {
        return consume(batch, cq.poll(batch));
    }

    @Benchmark
    public void requestNotification() throws RdmaException {
        cq.requestNotification(false);
    }

    /** What a consumer reads of each completion: its status and id. */
    private static long consume(WorkCompletions wcs, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            if (wcs.status(i) != WcStatus.SUCCESS) {
                return 0;
            }
            sum += wcs.id(i);
        }
        return sum;
    }
}
