package io.jrdma.benchmarks.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
            Files.writeString(round.resolve("c_rate_64.txt"), SEND_BW.formatted(fmt(24.41 * k), fmt(0.4 * k)));
            Files.writeString(round.resolve("perf_rate_all.json"), rate(0.36 * k));
            Files.writeString(round.resolve("endpoint_rate_all.json"), rate(0.3 * k));
            Files.writeString(round.resolve("jucx_rate_all.json"), rate(0.2 * k));
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
        assertTrue(md.contains("| 64 B | 10.00 | 11.00 | 12.00 | 20.00 | 1.20 | 1.09 | 2.00 | 1.82 |"), md);
        assertTrue(md.contains("| 64 B | 11.00 | 12.00 | 14.00 | 22.00 | 1.27 | 1.17 | 2.00 | 1.83 |"), md);
        assertTrue(md.contains("| 64 B | 0.4000 | 0.3600 | 0.2250 | 0.2000 | 0.56 | 0.63 | 0.50 | 0.56 |"), md);
        assertTrue(md.contains("| left out (no result) | round-3/endpoint_rate_all.json |"), md);
        assertTrue(md.contains("ep_cfg[1]: tag(rc_verbs/rxe0:1)\nep_cfg[0]: tag(rc_verbs/rxe0:1)\n"), md);
        assertEquals(2, md.split("ep_cfg", -1).length - 1, "each UCX line once");
    }

    @Test
    void thePictureHasBothPanels(@TempDir Path dir) throws IOException {
        BufferedImage image = EndpointReport.read(results(dir)).draw();
        assertEquals(1120, image.getWidth());
        assertEquals(440, image.getHeight());
    }
}
