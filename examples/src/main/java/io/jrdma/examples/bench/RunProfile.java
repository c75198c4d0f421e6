package io.jrdma.examples.bench;

import io.jrdma.examples.bench.CpuSample.Kind;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Where one client (read-lat, write-bw or send-bw) spent its measured run, from perf's {@code cpu-clock} samples of
 * the client process and of its server, taken at {@code frequency} Hz.
 *
 * <pre>{@code
 * RunProfile p = RunProfile.of("java 1", result, CpuSample.parse(client), CpuSample.parse(server), 20000, 1000,
 *         RunProfile.Shape.KERNEL_BOUND);
 * double perRead = p.cpuMicrosPerOperation();
 * }</pre>
 *
 * @param name        the run, e.g. {@code "C 1"}
 * @param result      what the tool reported: typical latency, or bandwidth and message rate
 * @param from        start of the measured run, in perf's clock (seconds)
 * @param to          its end
 * @param operations  reads or messages in the measured run
 * @param frequency   samples a second of one busy CPU
 * @param client      the client's samples in the measured run, all its threads
 * @param mainThread  those of its busiest thread, the one that posts and polls
 * @param server      the server's samples in the same time
 */
public record RunProfile(String name, Measurement result, double from, double to, int operations, int frequency,
                         List<CpuSample> client, int mainThread, int server) {
    /** Bins in which the measured run is looked for: a tenth of a second (counted so, not as 0.1, to bin exactly). */
    static final int BINS_PER_SECOND = 10;
    /** A bin of the measured run: the client's busiest thread was on a CPU at least this share of it. */
    static final double BUSY_SHARE = 0.2;
    /** Busy bins at most this far apart (seconds) belong to the same run: a reader is sometimes preempted. */
    static final double JOIN = 0.4;

    /** What a bin of a test's measured run looks like, besides busy. */
    public enum Shape {
        /**
         * At least 80% of the busy thread's samples in the kernel and 5% in rxe's own functions ({@code rxe_*}):
         * on rxe both ends of a read or a stream run in one kernel, and the requester, responder and completer
         * mostly run in the client's post (its doorbell write and the softirqs it raises), so such a loop is
         * kernel-bound. The tools' set-up, perftest's clock calibration and the JVM's start-up and JIT-idle waits are
         * not; the JVM's exit (unmapping its heap, writing the perf map) is kernel-bound too, but runs no rxe.
         */
        KERNEL_BOUND {
            @Override
            boolean matches(int samples, int kernel, int rxe, int loop) {
                return kernel >= 0.8 * samples && rxe >= 0.05 * samples;
            }

            @Override
            long[] pick(List<long[]> stretches) {
                return stretches.getLast();
            }
        },
        /**
         * At least half of the busy thread's samples in the test's own loop (the C tool's code or JIT-compiled
         * code) or the rxe provider: a ping-pong side spends most of a round trip polling for its completion and
         * for the peer's message, while the peer's post runs on the other vCPU. The JVM's start-up and exit run
         * in the JVM and the kernel; its warm-up is separated from the measured run by the JIT-idle wait. The
         * measured run is the longest such stretch (scripts/profile runs five times the warm-up's iterations): what
         * the JVM runs in JIT code after it, its report and its exit, would otherwise count as the last.
         */
        PING_PONG {
            @Override
            boolean matches(int samples, int kernel, int rxe, int loop) {
                return loop >= 0.5 * samples;
            }

            @Override
            long[] pick(List<long[]> stretches) {
                return stretches.stream().max(Comparator.comparingLong(r -> r[1] - r[0])).orElseThrow();
            }
        };

        abstract boolean matches(int samples, int kernel, int rxe, int loop);

        /** The measured run among the stretches of qualifying bins, in time order ({@code {first, last}} bins). */
        abstract long[] pick(List<long[]> stretches);
    }

    /**
     * Finds the measured run in {@code client}'s samples: the stretch of busy bins of its busiest thread that have
     * the test's {@code shape}, the one the shape picks (jrdma perf's warm-up comes before it, separated by the wait
     * for an idle JIT; perftest has none).
     *
     * @throws IllegalArgumentException when no bin qualifies
     */
    public static RunProfile of(String name, Measurement result, List<CpuSample> client, List<CpuSample> server,
                                int operations, int frequency, Shape shape) {
        int main = client.stream().collect(Collectors.groupingBy(CpuSample::tid, Collectors.counting()))
                .entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow(
                        () -> new IllegalArgumentException(name + ": no client samples")).getKey();
        Map<Long, int[]> bins = new HashMap<>();   // bin -> {samples, kernel, rxe, the loop's own code}
        for (CpuSample s : client) {
            if (s.tid() == main) {
                int[] b = bins.computeIfAbsent((long) Math.floor(s.seconds() * BINS_PER_SECOND), k -> new int[4]);
                b[0]++;
                b[1] += s.kind() == Kind.KERNEL ? 1 : 0;
                b[2] += s.kind() == Kind.KERNEL && s.symbol().startsWith("rxe_") ? 1 : 0;
                b[3] += s.kind() == Kind.TOOL || s.kind() == Kind.PROVIDER ? 1 : 0;
            }
        }
        double busy = BUSY_SHARE * frequency / BINS_PER_SECOND;
        List<Long> loop = bins.entrySet().stream()
                .filter(e -> e.getValue()[0] >= busy
                        && shape.matches(e.getValue()[0], e.getValue()[1], e.getValue()[2], e.getValue()[3]))
                .map(Map.Entry::getKey).sorted().toList();
        if (loop.isEmpty()) {
            throw new IllegalArgumentException(name + ": no busy stretch of the test's loop (" + shape
                    + ") in the client's samples");
        }
        // Stretches of qualifying bins, each {first, last}: bins at most JOIN apart belong to one.
        List<long[]> stretches = new ArrayList<>();
        for (long bin : loop) {
            if (stretches.isEmpty() || bin - stretches.getLast()[1] > JOIN * BINS_PER_SECOND + 1e-9) {
                stretches.add(new long[] {bin, bin});
            } else {
                stretches.getLast()[1] = bin;
            }
        }
        long[] run = shape.pick(stretches);
        double from = (double) run[0] / BINS_PER_SECOND;
        double to = (double) (run[1] + 1) / BINS_PER_SECOND;
        List<CpuSample> in = client.stream().filter(s -> s.seconds() >= from && s.seconds() < to).toList();
        int mainThread = (int) in.stream().filter(s -> s.tid() == main).count();
        int serverIn = (int) server.stream().filter(s -> s.seconds() >= from && s.seconds() < to).count();
        return new RunProfile(name, result, from, to, operations, frequency, in, mainThread, serverIn);
    }

    /**
     * The client's CPU time per read or message in the measured run, all its threads, in microseconds of the guest's
     * clock.
     */
    public double cpuMicrosPerOperation() {
        return client.size() * 1e6 / frequency / operations;
    }

    /** Samples by kind of code. */
    public Map<Kind, Integer> byKind() {
        Map<Kind, Integer> m = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            m.put(k, 0);
        }
        client.forEach(s -> m.merge(s.kind(), 1, Integer::sum));
        return m;
    }

    /** Samples by function, among those of the given kinds. */
    public Map<String, Integer> bySymbol(List<Kind> kinds) {
        return client.stream().filter(s -> kinds.contains(s.kind()))
                .collect(Collectors.toMap(CpuSample::symbol, s -> 1, Integer::sum));
    }

    /** Milliseconds of CPU, from a sample count. */
    public double millis(int samples) {
        return samples * 1e3 / frequency;
    }

    /** Sums {@code f} over runs, function by function. */
    static Map<String, Integer> merge(List<RunProfile> runs, Function<RunProfile, Map<String, Integer>> f) {
        Map<String, Integer> m = new HashMap<>();
        runs.forEach(r -> f.apply(r).forEach((k, v) -> m.merge(k, v, Integer::sum)));
        return m;
    }
}
