package io.jrdma.tool.perf;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerfReportTest {

    @Test
    void latencyTableHasPerftestsColumnsAndLayout() {
        assertEquals(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
                + "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ", PerfReport.LATENCY_HEADER);
        LatencyStatistics s = new LatencyStatistics(1994.30, 7967.92, 3996.73, 4069.88, 628.15, 6658.33, 7967.92);
        // A row as ib_write_lat 6.x prints it.
        assertEquals(" 64      200          1994.30        7967.92      3996.73  \t       4069.88     \t628.15 \t\t"
                + "6658.33 \t\t7967.92", PerfReport.row(PerfResult.latency(64, 200, s), false));
    }

    @Test
    void bandwidthTableHasPerftestsColumnsAndLayout() {
        assertEquals(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]",
                PerfReport.bandwidthHeader(false));
        assertEquals(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
                PerfReport.bandwidthHeader(true));
        BandwidthStatistics b = new BandwidthStatistics(21.04 * 1048576, 17.13 * 1048576, 4386);
        assertEquals(" 4096       200              21.04              17.13  \t\t   0.004386",
                PerfReport.row(PerfResult.bandwidth(4096, 200, b), false));
    }

    @Test
    void theBannerDisclosesTheWarmup() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new PerfReport(Parsed.perf(List.of("send-lat", "--warmup", "250")), new PrintStream(bytes, true))
                .banner("rxe0", "Ethernet", 1);
        assertTrue(bytes.toString().contains("\n Warm-up         : 250 iterations per size (at most 64 MiB), untimed, then until the JIT is idle\n"),
                bytes.toString());
    }

    @Test
    void tablesAreFramedAndJsonCarriesEveryRow() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PerfReport table = new PerfReport(Parsed.perf(List.of("read-bw", "--report_gbits")),
                new PrintStream(bytes, true));
        table.add(PerfResult.bandwidth(65536, 5000, new BandwidthStatistics(2.5e9, 1.25e9, 19073.5)));
        table.finish();
        String[] lines = bytes.toString().split("\n");
        assertEquals(PerfReport.LINE, lines[0]);
        assertEquals(PerfReport.bandwidthHeader(true), lines[1]);
        assertTrue(lines[2].matches(" 65536 +5000 +20\\.00 +10\\.00\\s+0\\.019074"), lines[2]);
        assertEquals(PerfReport.LINE, lines[3]);

        bytes.reset();
        PerfReport json = new PerfReport(Parsed.perf(List.of("write-lat", "--json", "--warmup", "5000")),
                new PrintStream(bytes, true));
        json.banner("rxe0", "Ethernet", 1);
        json.add(PerfResult.latency(2, 1000, new LatencyStatistics(1, 9, 2, 2.5, 0.5, 8, 9)).withWarmup(5000));
        json.add(PerfResult.averageLatency(8, 10, 4).withWarmup(5000).withRetries(3));
        json.finish();
        assertEquals("{\"test\":\"write-lat\",\"device\":\"rxe0\",\"rdma_cm\":false,\"warmup\":5000,\"results\":"
                + "[{\"bytes\":2,\"iterations\":1000,\"warmup_iterations\":5000,\"t_min_usec\":1.000,\"t_max_usec\":9.000,\"t_typical_usec\":2.000,"
                + "\"t_avg_usec\":2.500,\"t_stdev_usec\":0.500,\"p99_usec\":8.000,\"p99_9_usec\":9.000},"
                + "{\"bytes\":8,\"iterations\":10,\"warmup_iterations\":5000,\"t_avg_usec\":4.000,\"transport_retries\":3}]}\n",
                bytes.toString());
    }
}
