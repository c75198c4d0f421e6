package io.jrdma.benchmarks.report;

import io.jrdma.benchmarks.report.CpuSample.Kind;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Where one client (read-lat, write-bw or send-bw) spent its measured run, from perf's {@code cpu-clock} samples of
 * the client process and of its server, taken at {@code frequency} Hz.
 *
 * <pre>{@code
 * RunProfile p = RunProfile.of("java 1", result, CpuSample.parse(client), CpuSample.parse(server), 20000, 1000);
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
    /**
     * A bin of the measured run: the reading thread was on a CPU at least this share of it, and at least
     * {@link #KERNEL_SHARE} of its samples were in the kernel. On rxe both ends of a read run in one kernel, and the
     * requester, responder and completer mostly run in the client's post (its doorbell write and the softirqs it
     * raises): a read loop is kernel-bound. The tools' set-up, perftest's clock calibration and the JVM's start-up
     * and JIT-idle waits are not.
     */
    static final double BUSY_SHARE = 0.2;
    static final double KERNEL_SHARE = 0.8;
    /**
     * ... and at least this share of its samples were in rxe's own functions ({@code rxe_*}): the JVM's exit
     * (unmapping its heap, writing the perf map) is kernel-bound too, but runs none of them.
     */
    static final double RXE_SHARE = 0.05;
    /** A bin of a ping-pong's measured run: the client's busiest thread was on a CPU at least this share of it. */
    static final double SPIN_SHARE = 0.8;
    /** Busy bins at most this far apart (seconds) belong to the same run: a reader is sometimes preempted. */
    static final double JOIN = 0.4;

    /**
     * Finds the measured run in {@code client}'s samples: the last stretch of busy, kernel-bound bins of its busiest
     * thread that run rxe (jrdma perf's warm-up comes before it, separated by the wait for an idle JIT; perftest has
     * none). For a read or a stream, whose loops are kernel-bound on rxe.
     *
     * @throws IllegalArgumentException when no bin qualifies
     */
    public static RunProfile of(String name, Measurement result, List<CpuSample> client, List<CpuSample> server,
                                int operations, int frequency) {
        double busy = BUSY_SHARE * frequency / BINS_PER_SECOND;
        return found(name, result, client, server, operations, frequency,
                b -> b[0] >= busy && b[1] >= KERNEL_SHARE * b[0] && b[2] >= RXE_SHARE * b[0],
                "no busy, kernel-bound stretch running rxe in the client's samples");
    }

    /**
     * Finds a ping-pong's measured run in {@code client}'s samples: the last stretch of bins in which its busiest
     * thread is on a CPU at least {@link #SPIN_SHARE} of the time. A ping-pong client busy-polls in user space for
     * the whole run, so its loop is CPU-bound rather than kernel-bound. For perftest, which has no warm-up and whose
     * set-up is short; jrdma perf says where its run is ({@link #between}).
     *
     * @throws IllegalArgumentException when no bin qualifies
     */
    public static RunProfile spinning(String name, Measurement result, List<CpuSample> client,
                                      List<CpuSample> server, int operations, int frequency) {
        double spinning = SPIN_SHARE * frequency / BINS_PER_SECOND;
        return found(name, result, client, server, operations, frequency, b -> b[0] >= spinning,
                "no stretch in which the client spins on a CPU");
    }

    /**
     * A ping-pong's measured run that lasted {@code seconds}, as the tool reported, and ended where the client last
     * spun: the end of the stretch {@link #spinning} finds. For a tool that reports how long its loop took but not
     * when, and exits right after it.
     *
     * @throws IllegalArgumentException when no bin qualifies
     */
    public static RunProfile lasting(String name, Measurement result, List<CpuSample> client,
                                     List<CpuSample> server, double seconds, int operations, int frequency) {
        RunProfile stretch = spinning(name, result, client, server, operations, frequency);
        return cut(name, result, client, server, mainThread(name, client), stretch.to() - seconds, stretch.to(),
                operations, frequency);
    }

    private static RunProfile found(String name, Measurement result, List<CpuSample> client, List<CpuSample> server,
                                    int operations, int frequency, Predicate<int[]> inRun, String none) {
        long main = mainThread(name, client);
        Map<Long, int[]> bins = new HashMap<>();   // bin -> {samples, kernel samples, rxe samples}
        for (CpuSample s : client) {
            if (s.tid() == main) {
                int[] b = bins.computeIfAbsent((long) Math.floor(s.seconds() * BINS_PER_SECOND), k -> new int[3]);
                b[0]++;
                b[1] += s.kind() == Kind.KERNEL ? 1 : 0;
                b[2] += s.kind() == Kind.KERNEL && s.symbol().startsWith("rxe_") ? 1 : 0;
            }
        }
        List<Long> loop = bins.entrySet().stream().filter(e -> inRun.test(e.getValue()))
                .map(Map.Entry::getKey).sorted().toList();
        if (loop.isEmpty()) {
            throw new IllegalArgumentException(name + ": " + none);
        }
        long last = loop.getLast();
        long first = last;
        for (int i = loop.size() - 2; i >= 0 && first - loop.get(i) <= JOIN * BINS_PER_SECOND + 1e-9; i--) {
            first = loop.get(i);
        }
        return cut(name, result, client, server, main, (double) first / BINS_PER_SECOND,
                (double) (last + 1) / BINS_PER_SECOND, operations, frequency);
    }

    /**
     * The run between two instants the tool reported, on the clock perf recorded with ({@code perf record -k
     * CLOCK_MONOTONIC}, the clock of Java's {@link System#nanoTime()}).
     *
     * @throws IllegalArgumentException when the client has no sample
     */
    public static RunProfile between(String name, Measurement result, List<CpuSample> client, List<CpuSample> server,
                                     double from, double to, int operations, int frequency) {
        return cut(name, result, client, server, mainThread(name, client), from, to, operations, frequency);
    }

    private static RunProfile cut(String name, Measurement result, List<CpuSample> client, List<CpuSample> server,
                                  long main, double from, double to, int operations, int frequency) {
        List<CpuSample> in = client.stream().filter(s -> s.seconds() >= from && s.seconds() < to).toList();
        int mainThread = (int) in.stream().filter(s -> s.tid() == main).count();
        int serverIn = (int) server.stream().filter(s -> s.seconds() >= from && s.seconds() < to).count();
        return new RunProfile(name, result, from, to, operations, frequency, in, mainThread, serverIn);
    }

    /** The thread with the most samples: the one that posts and polls. */
    private static long mainThread(String name, List<CpuSample> client) {
        return client.stream().collect(Collectors.groupingBy(CpuSample::tid, Collectors.counting()))
                .entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow(
                        () -> new IllegalArgumentException(name + ": no client samples")).getKey();
    }

    /**
     * The client's CPU time per read or message in the measured run, all its threads, in microseconds of the guest's
     * clock.
     */
    public double cpuMicrosPerOperation() {
        return client.size() * 1e6 / frequency / operations;
    }

    /** The client's CPU time per operation in code of the given kinds, as {@link #cpuMicrosPerOperation}. */
    public double microsPerOperation(List<Kind> kinds) {
        return client.stream().filter(s -> kinds.contains(s.kind())).count() * 1e6 / frequency / operations;
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
