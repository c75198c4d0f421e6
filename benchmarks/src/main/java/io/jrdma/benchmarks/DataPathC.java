package io.jrdma.benchmarks;

import io.jrdma.nativetest.TestProvider;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The C baseline of {@link DataPathJava}: the same operations on the same provider, made by a C loop through
 * verbs.h's inline verbs. One downcall runs {@link #LOOP} of them, so its own cost is spread over all.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@OperationsPerInvocation(DataPathC.LOOP)
public class DataPathC {
    static final int LOOP = 10_000;

    @Benchmark
    public int postSend(ProviderState state) {
        return state.tp.benchPostSend(LOOP);
    }

    @Benchmark
    public int postSendChain16(ProviderState state) {
        return state.tp.benchPostSendChain(LOOP);
    }

    @Benchmark
    public int postReceive(ProviderState state) {
        return state.tp.benchPostReceive(LOOP);
    }

    @Benchmark
    public long poll1(ProviderState state) {
        return state.tp.benchPoll(1, LOOP);
    }

    @Benchmark
    public long poll16(ProviderState state) {
        return state.tp.benchPoll(TestProvider.CHAIN, LOOP);
    }

    @Benchmark
    public int requestNotification(ProviderState state) {
        return state.tp.benchRequestNotification(LOOP);
    }
}
