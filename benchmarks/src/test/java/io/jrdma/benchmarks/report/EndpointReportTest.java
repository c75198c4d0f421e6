package io.jrdma.benchmarks.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EndpointReportTest {
    private static final String SEND_LAT = """
            ---------------------------------------------------------------------------------------
             #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]\s
             64      2000          %s          30.00        %s     \t       12.00     \t2.00\t\t20.00 \t\t30.00
            ---------------------------------------------------------------------------------------
            """;
    private static final String SEND_BW = """
             #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
             64         5000             0.00               %s\t\t   %s
            """;

    private static final String UCX = "[1.0] [guest:12:0] UCX  INFO  ep_cfg[2]: tag(rc_verbs/rxe0:1)\n"
            + "Final:                 20000      %s     16.000    16.000      %s       %s      %s      %s\n";

    private static String ucx(double p50, double mbPerSecond, double messagesPerSecond) {
        return UCX.formatted(fmt(p50), fmt(mbPerSecond), fmt(mbPerSecond), fmt(messagesPerSecond),
                fmt(messagesPerSecond));
    }

    private static String lat(double min, double typical) {
        return String.format(java.util.Locale.ROOT, "{\"test\":\"x\",\"results\":[{\"bytes\":64,\"iterations\":2000,"
                + "\"t_min_usec\":%.3f,\"t_typical_usec\":%.3f}]}", min, typical);
    }

    private static String rate(double mpps) {
        return String.format(java.util.Locale.ROOT, "{\"test\":\"x\",\"results\":[{\"bytes\":64,\"iterations\":5000,"
                + "\"bw_average_mb_per_sec\":%.6f,\"msg_rate_mpps\":%.6f}]}", mpps * 64e6 / (1 << 20), mpps);
    }

    /** Three rounds of each implementation, the middle round the median of each. */
    private static Path results(Path dir) throws IOException {
        Files.writeString(dir.resolve("env.txt"), "rounds=3\nucx_env=UCX_TLS=rc_verbs UCX_NET_DEVICES=rxe0:1\n");
        for (int r = 1; r <= 3; r++) {
            Path round = Files.createDirectories(dir.resolve("round-" + r));
            double k = r == 2 ? 1 : r == 1 ? 0.5 : 2;
            Files.writeString(round.resolve("c_lat_64.txt"), SEND_LAT.formatted(fmt(10 * k), fmt(11 * k)));
            Files.writeString(round.resolve("perf_lat_all.json"), lat(11 * k, 12 * k));
            Files.writeString(round.resolve("endpoint_lat_all.json"), lat(12 * k, 14 * k));
            // UCX's log goes to stdout, before the client's JSON.
            Files.writeString(round.resolve("jucx_lat_all.json"),
                    "[1.2] [guest:10:0]  ucp_worker.c:1763 UCX  INFO    ep_cfg[1]: tag(rc_verbs/rxe0:1)\n"
                            + lat(20 * k, 22 * k));
            Files.writeString(round.resolve("ucx_lat_64.txt"), ucx(15 * k, 5, 60000));
            Files.writeString(round.resolve("future_lat_all.json"), lat(13 * k, 16 * k));
            Files.writeString(round.resolve("connection_lat_all.json"), lat(30 * k, 60 * k));
            Files.writeString(round.resolve("c_rate_64.txt"), SEND_BW.formatted(fmt(24.41 * k), fmt(0.4 * k)));
            Files.writeString(round.resolve("ucx_rate_64.txt"), ucx(3, 15.26 * k, 250000 * k));
            Files.writeString(round.resolve("perf_rate_all.json"), rate(0.36 * k));
            Files.writeString(round.resolve("endpoint_rate_all.json"), rate(0.3 * k));
            Files.writeString(round.resolve("future_rate_all.json"), rate(0.28 * k));
            Files.writeString(round.resolve("jucx_rate_all.json"), rate(0.18 * k));
            Files.writeString(round.resolve("c_rate1_64.txt"), SEND_BW.formatted(fmt(18.31 * k), fmt(0.3 * k)));
            Files.writeString(round.resolve("endpoint_rate1_all.json"), rate(0.27 * k));
            Files.writeString(round.resolve("c_bw_65536.txt"), SEND_BW.replace(" 64 ", " 65536 ")
                    .formatted(fmt(100 * k), fmt(0.0016 * k)));
            Files.writeString(round.resolve("endpoint_bw_all.json"), "{\"results\":[{\"bytes\":65536,"
                    + "\"bw_average_mb_per_sec\":" + fmt(96 * k) + ",\"msg_rate_mpps\":0.0015}]}");
            Files.writeString(round.resolve("jucx_rate_all.json.server"),
                    "[1.3] [guest:11:0]  ucp_worker.c:1763 UCX  INFO  ep_cfg[0]: tag(rc_verbs/rxe0:1)\n");
        }
        Files.writeString(dir.resolve("round-3/endpoint_rate_all.json"), "Exception in thread \"main\"");
        return dir;
    }

    private static String fmt(double v) {
        return String.format(java.util.Locale.ROOT, "%.2f", v);
    }

    @Test
    void eachCellIsTheMedianOverRoundsWithRatiosToBothFloors(@TempDir Path dir) throws IOException {
        EndpointReport report = EndpointReport.read(results(dir));
        assertEquals(12, report.median("lat", 64, EndpointReport.Impl.ENDPOINT, Measurement::minMicros), 1e-9);
        assertEquals(11, report.median("lat", 64, EndpointReport.Impl.C, Measurement::typicalMicros), 1e-9);
        // Two rounds left of the endpoint's rate: the mean of the middle two.
        assertEquals((0.15 + 0.3) / 2, report.median("rate", 64, EndpointReport.Impl.ENDPOINT, Measurement::mpps),
                1e-6);
        String md = report.markdown(Map.of("rounds", "3"));
        // Columns: C, ucx_perftest, jrdma perf, endpoint, futures, RdmaConnection, JUCX; then endpoint / C, endpoint / perf,
        // futures / endpoint, JUCX / C, JUCX / perf, endpoint / JUCX. ucx_perftest has no least latency.
        assertTrue(md.contains("| 64 B | 10.00 | - | 11.00 | 12.00 | 13.00 | 30.00 | 20.00 | 1.20 | 1.09 | 1.08 | 2.00 "
                + "| 1.82 | 0.60 |"), md);
        assertTrue(md.contains("| 64 B | 11.00 | 15.00 | 12.00 | 14.00 | 16.00 | 60.00 | 22.00 | 1.27 | 1.17 | 1.14 "
                + "| 2.00 | 1.83 | 0.64 |"), md);
        assertTrue(md.contains("## Message rate, millions of messages a second (128 in flight)\n\n"), md);
        assertTrue(md.contains("| 64 B | 0.4000 | 0.2500 | 0.3600 | 0.2250 | 0.2800 | - | 0.1800 | 0.56 | 0.63 | 1.24 "
                + "| 0.45 | 0.50 | 1.25 |"), md);
        assertTrue(md.contains("## Message rate, millions of messages a second (1 in flight)\n\n"), md);
        assertTrue(md.contains("| 64 B | 0.3000 | - | - | 0.2700 | - | - | - | 0.90 | - | - | - | - | - |"), md);
        assertFalse(md.contains("(8 in flight)"), "a depth nothing ran at has no table");
        assertTrue(md.contains("| 64 KiB | 100.0 | - | - | 96.0 | - | - | - | 0.96 | - | - | - | - | - |"), md);
        assertTrue(md.contains("| left out (no result) | round-3/endpoint_rate_all.json |"), md);
        assertTrue(md.contains("ep_cfg[1]: tag(rc_verbs/rxe0:1)\nep_cfg[0]: tag(rc_verbs/rxe0:1)\n"), md);
        assertTrue(md.contains("ep_cfg[2]: tag(rc_verbs/rxe0:1)\n"), md);   // ucx_perftest's, too
        assertEquals(3, md.split("ep_cfg", -1).length - 1, "each UCX line once");
    }

    @Test
    void thePictureHasBothPanels(@TempDir Path dir) throws IOException {
        BufferedImage image = EndpointReport.read(results(dir)).draw();
        assertEquals(1120, image.getWidth());
        assertEquals(440, image.getHeight());
    }
}
