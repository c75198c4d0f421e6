package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.junit.RdmaDeviceExtension;
import io.jrdma.nativetest.support.RcPair;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

import java.util.List;

/**
 * Random work requests against a real connected RC queue pair: lengths, offsets (inside and outside the region),
 * opcodes, flags, entry counts, remote addresses and keys, inline sizes. Every build-and-post either succeeds or
 * throws an exception its Javadoc documents; nothing else, and never a crash.
 */
@Tag("device")
class WorkRequestPropertiesDeviceTest {
    private static Context ctx;
    private static RcPair pair;
    private static boolean receivePosted;

    record Entry(long offset, int length) {
    }

    @BeforeContainer
    static void open() throws Exception {
        String name = System.getProperty(RdmaDeviceExtension.DEVICE_PROPERTY,
                System.getenv().getOrDefault(RdmaDeviceExtension.DEVICE_ENV, "rxe0"));
        ctx = Context.open(name);
        pair = new RcPair(ctx, QpType.RC);
    }

    @AfterContainer
    static void close() throws Exception {
        pair.close();
        ctx.close();
    }

    @Provide
    Arbitrary<Entry> entries() {
        Arbitrary<Long> offsets = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.longs().between(-16, RcPair.BUFFER + 16)),
                Tuple.of(1, Arbitraries.longs()));
        Arbitrary<Integer> lengths = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.integers().between(-16, 256)),
                Tuple.of(2, Arbitraries.integers().between(0, RcPair.BUFFER + 16)),
                Tuple.of(1, Arbitraries.integers()));
        return Combinators.combine(offsets, lengths).as(Entry::new);
    }

    @Provide
    Arbitrary<Long> remoteAddresses() {
        long base = pair.mrB.address();
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(base - 64, base + RcPair.BUFFER + 64)),
                Tuple.of(1, Arbitraries.longs()));
    }

    @Provide
    Arbitrary<Integer> keys() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(pair.mrB.remoteKey())),
                Tuple.of(1, Arbitraries.just(pair.mrB.localKey())),
                Tuple.of(1, Arbitraries.integers()));
    }

    @Property(tries = 250)
    void everyPostSucceedsOrThrowsADocumentedException(
            @ForAll SendOpcode opcode, @ForAll @Size(max = 5) List<@From("entries") Entry> entries,
            @ForAll boolean inline, @ForAll boolean fence, @ForAll boolean solicited,
            @ForAll("remoteAddresses") long remote, @ForAll("keys") int rkey, @ForAll long operand) throws Exception {
        String outcome;
        try {
            SendWorkRequest wr = new SendWorkRequest(4).id(1).opcode(opcode).signaled(true).inline(inline)
                    .fence(fence).solicited(solicited);
            for (Entry e : entries) {
                wr.add(pair.mrA, e.offset(), e.length());
            }
            if (opcode == SendOpcode.ATOMIC_CMP_AND_SWP || opcode == SendOpcode.ATOMIC_FETCH_AND_ADD) {
                wr.atomic(remote, rkey, operand, operand >>> 1);
            } else {
                wr.rdma(remote, rkey).immediate((int) operand).invalidate(rkey);
            }
            ensureReceive();
            pair.a.postSend(wr);
            outcome = "posted, " + complete();
        } catch (IllegalArgumentException | IndexOutOfBoundsException | IllegalStateException | RdmaException e) {
            outcome = e.getClass().getSimpleName();
        }
        Statistics.collect(outcome);
    }

    /** The peer always has a receive waiting, so that SENDs complete instead of retrying forever. */
    private static void ensureReceive() throws RdmaException {
        if (!receivePosted) {
            pair.b.postReceive(new ReceiveWorkRequest(1).add(pair.mrB, 0, RcPair.BUFFER));
            receivePosted = true;
        }
    }

    /**
     * Waits a while for the request's completion. The property is about the calls, not the device: a request that
     * fails on the device, or does not complete in time (rxe sometimes stalls after an error), starts the next try
     * on new queue pairs.
     */
    private static String complete() throws Exception {
        WorkCompletions one = new WorkCompletions(1);
        WorkCompletions peer = new WorkCompletions(16);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (pair.cqA.poll(one) == 0) {
            if (System.nanoTime() > deadline) {
                restart();
                return "no completion in 5 s";
            }
            Thread.onSpinWait();
        }
        while (pair.cqB.poll(peer) > 0) {
            receivePosted = false;   // B has only receives: one completed
        }
        WcStatus status = one.status(0);
        if (status != WcStatus.SUCCESS) {
            restart();
        }
        return status.name();
    }

    private static void restart() throws Exception {
        pair.close();
        pair = new RcPair(ctx, QpType.RC);
        receivePosted = false;
    }
}
