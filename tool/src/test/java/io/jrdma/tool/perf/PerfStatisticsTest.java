package io.jrdma.tool.perf;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PerfStatisticsTest {

    @Test
    void latencyFollowsPerftestOnKnownSamples() {
        // 1..10 µs shuffled, plus two outliers that perftest's LAT_MEASURE_TAIL sets aside.
        long[] nanos = {5000, 1000, 9000, 3000, 7000, 2000, 10000, 4000, 8000, 6000, 900_000, 800_000};
        LatencyStatistics s = LatencyStatistics.of(nanos, 1);
        assertEquals(1.0, s.minMicros(), 1e-9);
        assertEquals(5.5, s.typicalMicros(), 1e-9);        // even count: mean of the middle two
        assertEquals(5.5, s.avgMicros(), 1e-9);
        assertEquals(Math.sqrt(8.25), s.stdevMicros(), 1e-9); // population stdev of 1..10
        assertEquals(800.0, s.maxMicros(), 1e-9);           // the sample right above the measured ten
        assertEquals(800.0, s.p99Micros(), 1e-9);           // index ceil(10 * 0.99) = 10
        assertEquals(800.0, s.p999Micros(), 1e-9);
    }

    @Test
    void oddCountsTakeTheMiddleAndPingPongsReportHalfARoundTrip() {
        long[] nanos = {2000, 4000, 6000, 100_000, 100_000};
        LatencyStatistics s = LatencyStatistics.of(nanos, 2);
        assertEquals(1.0, s.minMicros(), 1e-9);
        assertEquals(2.0, s.typicalMicros(), 1e-9);
        assertEquals(2.0, s.avgMicros(), 1e-9);
        assertEquals(50.0, s.maxMicros(), 1e-9);
    }

    @Test
    void percentilesOnAThousandSamples() {
        long[] nanos = new long[1002];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = (i + 1) * 1000L;   // 1..1002 µs
        }
        LatencyStatistics s = LatencyStatistics.of(nanos, 1);
        assertEquals(991.0, s.p99Micros(), 1e-9);   // sorted[ceil(1000 * 0.99)] = sorted[990]
        assertEquals(1000.0, s.p999Micros(), 1e-9);  // sorted[999]
        assertEquals(1001.0, s.maxMicros(), 1e-9);   // sorted[1000]
        assertEquals(500.5, s.typicalMicros(), 1e-9);
    }

    @Test
    void stampsBecomeDeltasBetweenIterations() {
        long[] stamps = {0, 1000, 3000, 6000, 10000, 15000};
        LatencyStatistics s = LatencyStatistics.ofStamps(stamps, 6, 1);   // deltas 1,2,3,4,5 µs; 4 and 5 set aside
        assertEquals(1.0, s.minMicros(), 1e-9);
        assertEquals(2.0, s.typicalMicros(), 1e-9);
        assertEquals(4.0, s.maxMicros(), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> LatencyStatistics.ofStamps(stamps, 4, 1));
    }

    @Test
    void bandwidthIsBytesOverTimeAndPeakTheBestRun() {
        // Four 1 MiB messages: posted at 0,1,2,3 ms, completed at 2,3,4,10 ms.
        long ms = 1_000_000;
        long[] posted = {0, ms, 2 * ms, 3 * ms};
        long[] completed = {2 * ms, 3 * ms, 4 * ms, 10 * ms};
        BandwidthStatistics b = BandwidthStatistics.of(posted, completed, 4, 1 << 20);
        assertEquals(400.0, BandwidthStatistics.inUnits(b.averageBytesPerSecond(), false), 1e-9);   // 4 MiB / 10 ms
        assertEquals(400.0, b.messagesPerSecond(), 1e-9);
        // Best run: messages 0..2, 3 MiB from 0 to 4 ms = 750 MiB/s.
        assertEquals(750.0, BandwidthStatistics.inUnits(b.peakBytesPerSecond(), false), 1e-9);
        assertEquals(4 * 1048576 * 8 / 1e9 / 0.01, BandwidthStatistics.inUnits(b.averageBytesPerSecond(), true),
                1e-9);
    }
}
