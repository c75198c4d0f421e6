package io.jrdma.benchmarks.report;

import io.jrdma.benchmarks.report.Comparison.Side;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchReportTest {
    /** As ib_write_lat 6.06 prints it on rxe0 (banner shortened). */
    private static final String C_LAT = """
            ---------------------------------------------------------------------------------------
                                RDMA_Write Latency Test
             Dual-port       : OFF		Device         : rxe0
             TX depth        : 1
            ---------------------------------------------------------------------------------------
             #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   \
            99% percentile[usec]   99.9% percentile[usec]\s
             64      2000          1005.10        215987.99      4043.44  	       6907.75     	1340.30		\
            58253.93 		214097.00
            ---------------------------------------------------------------------------------------
            """;
    private static final String C_BW = """
             local address: LID 0000 QPN 0x0012 PSN 0x5e6739 RKey 0x00039e VAddr 0x005585384e1000
            ---------------------------------------------------------------------------------------
             #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
             4096       5000             23.33              15.50  		   0.003968
            ---------------------------------------------------------------------------------------
            """;
    private static final String JAVA_LAT = "{\"test\":\"write-lat\",\"device\":\"rxe0\",\"rdma_cm\":false,\"results\":"
            + "[{\"bytes\":64,\"iterations\":2000,\"t_min_usec\":1688.840,\"t_max_usec\":597970.410,"
            + "\"t_typical_usec\":4200.000,\"t_avg_usec\":13322.560,\"t_stdev_usec\":23560.570,\"p99_usec\":1.0,"
            + "\"p99_9_usec\":2.0}]}";
    private static final String JAVA_BW = "{\"test\":\"write-bw\",\"device\":\"rxe0\",\"rdma_cm\":false,\"results\":"
            + "[{\"bytes\":4096,\"iterations\":5000,\"bw_peak_mb_per_sec\":12.830000,"
            + "\"bw_average_mb_per_sec\":15.000000,\"msg_rate_mpps\":0.003840}]}";

    @Test
    void readsPerftestsLatencyAndBandwidthTables() {
        assertEquals(List.of(Measurement.latency(64, 4043.44, 1005.10)), Measurement.perftest(C_LAT));
        assertEquals(List.of(Measurement.bandwidth(4096, 15.50, 0.003968)), Measurement.perftest(C_BW));
    }

    @Test
    void readsJrdmaPerfJson() {
        assertEquals(List.of(Measurement.latency(64, 4200.0, 1688.84)), Measurement.jrdmaJson(JAVA_LAT));
        assertEquals(List.of(Measurement.bandwidth(4096, 15.0, 0.00384)), Measurement.jrdmaJson(JAVA_BW));
    }

    @Test
    void refusesOutputWithoutResults() {
        assertThrows(IllegalArgumentException.class, () -> Measurement.perftest("Couldn't connect to 10.0.2.15"));
        assertThrows(IllegalArgumentException.class, () -> Measurement.perftest(C_BW.replace("MB/sec", "Gb/sec")));
        assertThrows(IllegalArgumentException.class, () -> Measurement.jrdmaJson(""));
        assertThrows(IllegalArgumentException.class,
                () -> Measurement.jrdmaJson(JAVA_BW.replace("mb_per_sec", "gbit_per_sec")));
    }

    @Test
    void comparesMediansOverRoundsAndTheirSpread() {
        Comparison c = new Comparison("write-bw");
        for (double mb : new double[] {10, 14, 12}) {
            c.add(Side.C, Measurement.bandwidth(4096, mb, mb / 4));
        }
        for (double mb : new double[] {9, 11}) {
            c.add(Side.JAVA, Measurement.bandwidth(4096, mb, mb / 4));
        }
        c.add(Side.C, Measurement.bandwidth(64, 1, 1));   // C only: not a comparison
        Comparison.Row r = c.rows().getFirst();
        assertEquals(1, c.rows().size());
        assertEquals(12, r.median(Side.C, Measurement::mbPerSecond));
        assertEquals(10, r.median(Side.JAVA, Measurement::mbPerSecond));
        assertEquals(10.0 / 12, r.ratio(Measurement::mbPerSecond), 1e-12);
        assertEquals(4.0 / 12, r.spread(Side.C, Measurement::mbPerSecond), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> c.add(Side.C, Measurement.latency(64, 3, 2)));
    }

    @Test
    void pageShowsRatiosAgainstTargetsAndTheSetup() {
        Comparison lat = new Comparison("write-lat");
        lat.add(Side.C, Measurement.latency(2, 100, 90));
        lat.add(Side.JAVA, Measurement.latency(2, 104, 92));
        lat.add(Side.C, Measurement.latency(65536, 200, 190));
        lat.add(Side.JAVA, Measurement.latency(65536, 220, 200));
        Comparison bw = new Comparison("send-bw");
        bw.add(Side.C, Measurement.bandwidth(1 << 20, 20, 0.00002));
        bw.add(Side.JAVA, Measurement.bandwidth(1 << 20, 19.4, 0.0000194));
        String md = new PerformanceReport(BenchReport.environment("kernel=6.1.0\nrounds = 3\njunk\n"),
                List.of(lat, bw)).markdown();
        assertTrue(md.contains("| Kernel | 6.1.0 |"), md);
        assertTrue(md.contains("| Rounds | 3 |"), md);
        assertTrue(md.contains("| write-lat | µs | 1.10 | ≤ 1.05 | **no** |"), md);
        assertTrue(md.contains("| send-bw | Mpps | 0.97 | ≥ 0.95 | yes |"), md);
        assertTrue(md.contains("| 2 B | 100.0 | 104.0 | 1.04 | 90.00 | 92.00 | 1.02 | 0% / 0% |"), md);
        assertFalse(md.contains("| write-lat | min µs"), "the least latency is shown, not a target: " + md);
        assertTrue(md.contains("| 64 KiB | 200.0 | 220.0 | **1.10** |"), md);
        assertTrue(md.contains("| 1 MiB | 20.00 | 19.40 | 0.97 | 0.000020 | 0.000019 | 0.97 |"), md);
    }

    @Test
    void theSetupListsTheRunsWithTransportRetries() {
        String md = new PerformanceReport(BenchReport.environment(
                "retries=C write-bw 64 B round 1: 3; Java send-bw 512 B round 1: 12 (measured run: 5)\n"), List.of())
                .markdown();
        assertTrue(md.contains("Java's warm-up included; in brackets Java's measured run alone (each retry waits for "
                + "rxe's ACK timeout) | C write-bw 64 B round 1: 3; Java send-bw 512 B round 1: 12 (measured run: 5) |"),
                md);
    }

    @Test
    void theSetupDisclosesTheJavaWarmup() {
        String md = new PerformanceReport(BenchReport.environment("java_warmup=5000\n"), List.of()).markdown();
        assertTrue(md.contains("| Java warm-up | 5000 untimed iterations of the same test before the timed ones, in "
                + "every run (jrdma perf --warmup 5000); perftest has none |"), md);
        String both = new PerformanceReport(BenchReport.environment("java_warmup=5000\njava_warmup_bw=10000\n"),
                List.of()).markdown();
        assertTrue(both.contains("| Java warm-up | untimed iterations of the same test before the timed ones, in "
                + "every run: 5000 for latency, min(10000, 64 MiB / size) messages for bandwidth"), both);
        String read = new PerformanceReport(BenchReport.environment(
                "java_warmup=5000\njava_warmup_read=20000\njava_warmup_bw=10000\n"), List.of()).markdown();
        assertTrue(read.contains("every run: 5000 for write-lat and send-lat, 20000 for read-lat, min(10000, 64 MiB / "
                + "size) messages for bandwidth"), read);
        String none = new PerformanceReport(BenchReport.environment("java_warmup=0\n"), List.of()).markdown();
        assertTrue(none.contains("| Java warm-up | none (--warmup 0); perftest has none either |"), none);
        // A run recorded before jrdma perf had a warm-up: the page says the timings include the JIT's.
        String before = new PerformanceReport(BenchReport.environment("rounds=1\n"), List.of()).markdown();
        assertTrue(before.contains("| Java warm-up | none: jrdma perf timed from its first iteration"), before);
    }

    @Test
    void readsAResultsDirectoryAndWritesThePageAndPlot(@TempDir Path dir) throws IOException {
        Path round = Files.createDirectories(dir.resolve("results/round-1"));
        Files.writeString(dir.resolve("results/env.txt"), "rounds=1\n");
        Files.writeString(round.resolve("c_write-lat_64.txt"), C_LAT);
        Files.writeString(round.resolve("java_write-lat_64.json"), JAVA_LAT);
        Files.writeString(round.resolve("c_write-bw_4096.txt"), C_BW);
        Files.writeString(round.resolve("java_write-bw_4096.json"), "");   // a run that failed
        Files.writeString(round.resolve("c_read-lat_64.txt"), C_LAT);
        // One jrdma perf run of every size (--sizes) writes one file for all of them.
        Files.writeString(round.resolve("java_read-lat_all.json"), JAVA_LAT.replace("write-lat", "read-lat"));
        List<String> leftOut = new ArrayList<>();
        List<Comparison> tests = BenchReport.collect(dir.resolve("results"), leftOut);
        assertEquals(List.of("write-lat", "read-lat"), tests.stream().map(Comparison::test).toList());
        assertEquals(List.of("round-1/java_write-bw_4096.json"), leftOut);

        BenchReport.main(new String[] {dir.resolve("results").toString(), dir.resolve("docs").toString()});
        String md = Files.readString(dir.resolve("docs/performance.md"));
        assertTrue(md.contains("| 64 B | 4043.4 | 4200.0 | 1.04 |"), md);
        assertTrue(md.contains("Runs left out (failed) | 1: round-1/java_write-bw_4096.json"), md);
        assertTrue(md.contains("(each retry waits for rxe's ACK timeout) | none |"), md);   // no retries.txt
        BufferedImage png = javax.imageio.ImageIO.read(dir.resolve("docs/performance.png").toFile());
        assertEquals(1120, png.getWidth());
    }

    @Test
    void aRunStoppedEarlySaysWhichTestsHaveFewerRoundsAndStillListsItsRetries(@TempDir Path dir)
            throws IOException {
        Path results = dir.resolve("results");
        for (int r = 1; r <= 2; r++) {
            Path round = Files.createDirectories(results.resolve("round-" + r));
            Files.writeString(round.resolve("c_write-bw_4096.txt"), C_BW);
            Files.writeString(round.resolve("java_write-bw_4096.json"), JAVA_BW);
        }
        Files.writeString(results.resolve("round-1/c_write-lat_64.txt"), C_LAT);
        Files.writeString(results.resolve("round-1/java_write-lat_64.json"), JAVA_LAT);
        Files.writeString(results.resolve("env.txt"), "rounds=2\n");   // the retries are in retries.txt only
        Files.writeString(results.resolve("retries.txt"),
                "C write-bw 4096 B round 1: 3\nJava write-bw 4096 B round 2: 4 (measured run: 1)\n");
        BenchReport.main(new String[] {results.toString(), dir.resolve("docs").toString()});
        String md = Files.readString(dir.resolve("docs/performance.md"));
        assertTrue(md.contains("## write-lat\n\nSome sizes have 1 of the 2 rounds: the others left no result."), md);
        assertFalse(md.contains("## write-bw\n\nSome sizes"), md);
        assertTrue(md.contains("(each retry waits for rxe's ACK timeout) | C write-bw 4096 B round 1: 3; "
                + "Java write-bw 4096 B round 2: 4 (measured run: 1) |"), md);
    }
}
