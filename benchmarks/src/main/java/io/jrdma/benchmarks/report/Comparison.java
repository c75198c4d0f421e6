package io.jrdma.benchmarks.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * Every round's measurements of one test (say {@code write-lat}) by both implementations, C perftest and
 * {@code jrdma perf}, and what the report shows of them: per size the median over rounds of each, their ratio, and
 * how far the rounds spread.
 *
 * <pre>{@code
 * Comparison c = new Comparison("write-lat");
 * c.add(Side.C, Measurement.latency(64, 4010.5, 3990.2));
 * c.add(Side.JAVA, Measurement.latency(64, 4102.0, 4001.3));
 * c.rows().getFirst().ratio(Measurement::typicalMicros);   // Java / C
 * }</pre>
 */
public final class Comparison {

    /** Which implementation measured. */
    public enum Side {
        C("C (perftest)"), JAVA("Java (jrdma)");

        private final String label;

        Side(String label) {
            this.label = label;
        }

        /** The name in tables and plots. */
        public String label() {
            return label;
        }
    }

    /** One message size: the rounds of each side. */
    public record Row(int size, List<Measurement> c, List<Measurement> java) {

        /** The median over rounds of {@code metric} on {@code side}. */
        public double median(Side side, ToDoubleFunction<Measurement> metric) {
            return Comparison.median((side == Side.C ? c : java).stream().mapToDouble(metric).toArray());
        }

        /** Java's median over C's. */
        public double ratio(ToDoubleFunction<Measurement> metric) {
            return median(Side.JAVA, metric) / median(Side.C, metric);
        }

        /** How far the rounds of {@code side} spread: (max - min) / median, 0 for a single round. */
        public double spread(Side side, ToDoubleFunction<Measurement> metric) {
            double[] v = (side == Side.C ? c : java).stream().mapToDouble(metric).toArray();
            double median = Comparison.median(v);
            return (Arrays.stream(v).max().orElseThrow() - Arrays.stream(v).min().orElseThrow()) / median;
        }
    }

    private final String test;
    private final Map<Integer, Map<Side, List<Measurement>>> bySize = new TreeMap<>();

    public Comparison(String test) {
        this.test = test;
    }

    /** The test's name, as {@code jrdma perf} spells it. */
    public String test() {
        return test;
    }

    /** Whether this is a latency test. */
    public boolean latency() {
        return test.endsWith("-lat");
    }

    /** Adds one round's measurement by {@code side}. */
    public void add(Side side, Measurement m) {
        if (m.isLatency() != latency()) {
            throw new IllegalArgumentException(test + ": a " + (m.isLatency() ? "latency" : "bandwidth")
                    + " measurement does not belong here: " + m);
        }
        bySize.computeIfAbsent(m.size(), s -> new LinkedHashMap<>()).computeIfAbsent(side, s -> new ArrayList<>())
                .add(m);
    }

    /** The sizes both sides measured, smallest first; sizes only one side has are left out. */
    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        bySize.forEach((size, sides) -> {
            if (sides.containsKey(Side.C) && sides.containsKey(Side.JAVA)) {
                rows.add(new Row(size, List.copyOf(sides.get(Side.C)), List.copyOf(sides.get(Side.JAVA))));
            }
        });
        return rows;
    }

    /**
     * The fewest rounds any size has on either side: fewer than the run's rounds where a run failed or the benchmark
     * was stopped early.
     */
    public int fewestRounds() {
        return rows().stream().mapToInt(r -> Math.min(r.c().size(), r.java().size())).min().orElse(0);
    }

    /** The median of {@code values} (the mean of the middle two for an even count). */
    static double median(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
