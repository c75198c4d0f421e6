package io.jrdma.benchmarks.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NettyReportTest {
    private static final String RSTREAM = """
            name      bytes   xfers   iters   total       time     Gb/sec    usec/xfer
            custom    %s      %d      %d      1.2m        1.00s      %s       %s
            """;

    private static final String WRITE_BW = """
             #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
             1048576    256              0.00               %s  		   0.000160
            """;

    /** Both sides' sum, as perftest's bidirectional run reports it. */
    private static final String SEND_BW = """
             #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
             64         200000           0.00               %s  		   %s
            """;

    private static String lat(double min, double typical) {
        return String.format(Locale.ROOT, "{\"test\":\"x\",\"results\":[{\"bytes\":64,\"iterations\":2000,"
                + "\"t_min_usec\":%.3f,\"t_typical_usec\":%.3f}]}", min, typical);
    }

    private static String bandwidth(int size, double mb, double mpps) {
        return String.format(Locale.ROOT, "{\"test\":\"x\",\"results\":[{\"bytes\":%d,\"iterations\":5000,"
                + "\"bw_average_mb_per_sec\":%.6f,\"msg_rate_mpps\":%.6f}]}", size, mb, mpps);
    }

    /** Three rounds of each implementation, the middle round the median of each. */
    private static Path results(Path dir) throws IOException {
        Files.writeString(dir.resolve("env.txt"), "rounds=3\n");
        for (int r = 1; r <= 3; r++) {
            Path round = Files.createDirectories(dir.resolve("round-" + r));
            double k = r == 2 ? 1 : r == 1 ? 0.5 : 2;
            Files.writeString(round.resolve("rstream_lat_64.txt"), RSTREAM.formatted("64", 1, 2000, "0.01",
                    String.format(Locale.ROOT, "%.2f", 16 * k)));
            // 10,000 µs a 1 MiB transfer is 100 MB/s (2^20 bytes); the bandwidth is read from it, not from the
            // Gb/sec column's two decimals (0.84 for all three rounds).
            Files.writeString(round.resolve("rstream_stream_1048576.txt"), RSTREAM.formatted("1m", 256, 1, "0.84",
                    String.format(Locale.ROOT, "%.2f", 10_000 / k)));
            Files.writeString(round.resolve("ib_write_bw_stream_1048576.txt"), WRITE_BW.formatted(
                    String.format(Locale.ROOT, "%.2f", 160 * k)));
            Files.writeString(round.resolve("ib_send_bw_rate_64.txt"), SEND_BW.formatted(
                    String.format(Locale.ROOT, "%.2f", 122 * k), String.format(Locale.ROOT, "%.6f", 2 * k)));
            Files.writeString(round.resolve("perf_lat_all.json"), lat(10 * k, 12 * k));
            Files.writeString(round.resolve("pipeline_lat_all.json"), lat(2 * k, 3 * k));
            Files.writeString(round.resolve("rdma_lat_all.json"), lat(12 * k, 15 * k));
            Files.writeString(round.resolve("nio-rdma_lat_all.json"), lat(30 * k, 40 * k));
            Files.writeString(round.resolve("nio_lat_all.json"), lat(20 * k, 25 * k));
            Files.writeString(round.resolve("epoll_lat_all.json"), lat(18 * k, 22 * k));
            Files.writeString(round.resolve("rdma_rate_all.json"), bandwidth(64, 30 * k, 0.5 * k));
            Files.writeString(round.resolve("nio-rdma_rate_all.json"), bandwidth(64, 12 * k, 0.2 * k));
            Files.writeString(round.resolve("rdma_http_all.json"), bandwidth(64, 1 * k, 0.02 * k));
            Files.writeString(round.resolve("nio-rdma_http_all.json"), bandwidth(64, 1 * k, 0.01 * k));
            Files.writeString(round.resolve("rdma_grpc_all.json"), lat(100 * k, 150 * k));
            Files.writeString(round.resolve("nio-rdma_grpc_all.json"), lat(250 * k, 300 * k));
            Files.writeString(round.resolve("rdma_stream_all.json"), bandwidth(1 << 20, 80 * k, 80e-6 * k));
            Files.writeString(round.resolve("nio-rdma_stream_all.json"), bandwidth(1 << 20, 40 * k, 40e-6 * k));
        }
        Files.writeString(dir.resolve("round-3/epoll_lat_all.json"), "Exception in thread \"main\"");
        return dir;
    }

    @Test
    void eachCellIsTheMedianOverRoundsWithTheTargetsRatiosAndThePictureHasBothPanels(@TempDir Path dir) throws IOException {
        NettyReport report = NettyReport.read(results(dir));
        assertEquals(12, report.median("lat", 64, NettyReport.Impl.RDMA, Measurement::minMicros), 1e-9);
        assertEquals(16, report.median("lat", 64, NettyReport.Impl.RSTREAM, Measurement::typicalMicros), 1e-9);
        assertEquals(100, report.median("stream", 1 << 20, NettyReport.Impl.RSTREAM, Measurement::mbPerSecond),
                1e-3);
        String md = report.markdown(Map.of("rounds", "3"));
        // Least latency: perf, the pipeline floor, jrdma-netty, NIO over jrdma-nio, NIO, epoll (two rounds: the mean
        // of 9 and 18); then jrdma-netty against perf and NIO over jrdma-nio, and the floor's share of perf.
        assertTrue(md.contains("| 64 B | 10.00 | 2.00 | 12.00 | 30.00 | 20.00 | 13.50 | 1.20 | 0.40 | 0.20 |"), md);
        // The message rate: ib_send_bw each way (half its sum), jrdma-netty, NIO over jrdma-nio, NIO, epoll; then
        // jrdma-netty against NIO over jrdma-nio, and each of those two against the device's own rate.
        assertTrue(md.contains("| Size | C ib_send_bw, each way | jrdma-netty |"), md);
        assertTrue(md.contains("| 64 B | 1.0000 | 0.5000 | 0.2000 | - | - | 2.50 | 0.50 | 0.20 |"), md);
        // ib_send_bw and ib_write_bw are columns of the rate's and the stream's tables only.
        assertTrue(md.contains("| Size | C rstream | jrdma perf send-lat | Netty pipeline, no I/O | jrdma-netty | "
                + "Netty NIO over jrdma-nio |"), md);
        // ib_write_bw, rstream, jrdma-netty, NIO over jrdma-nio, NIO, epoll; then the four ratios.
        assertTrue(md.contains("| 1 MiB | 160.0 | 100.0 | 80.0 | 40.0 | - | - | 2.00 | 0.80 | 0.50 | 0.25 |"), md);
        // HTTP in thousands of requests a second.
        assertTrue(md.contains("| 64 B | 20.00 | 10.00 | - | - | 2.00 |"), md);
        // gRPC calls, least then typical, each a whole call.
        assertTrue(md.contains("## gRPC unary call, least µs per call"), md);
        assertTrue(md.contains("| 64 B | 100.0 | 250.0 | - | - | 0.40 |"), md);
        assertTrue(md.contains("| 64 B | 150.0 | 300.0 | - | - | 0.50 |"), md);
        assertTrue(md.contains("| left out (no result) | round-3/epoll_lat_all.json |"), md);
        BufferedImage picture = report.draw();
        assertEquals(2 * 560, picture.getWidth(), "latency and message rate side by side");
    }

    @Test
    void aRunOfSomeTestsHasSectionsForThoseOnly(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("env.txt"), "rounds=1\ntests=lat\n");
        Path round = Files.createDirectories(dir.resolve("round-1"));
        Files.writeString(round.resolve("perf_lat_all.json"), lat(10, 12));
        Files.writeString(round.resolve("rdma_lat_all.json"), lat(12, 15));
        NettyReport report = NettyReport.read(dir);
        String md = report.markdown(Map.of("rounds", "1", "tests", "lat"));
        assertTrue(md.contains("| 64 B | 10.00 | - | 12.00 | - | - | - | 1.20 | - | - |"), md);
        assertTrue(md.contains("## Echo typical latency"), md);
        for (String absent : new String[] {"## Pipelined echo", "## Streaming", "## HTTP", "## gRPC"}) {
            assertFalse(md.contains(absent), absent + " in\n" + md);
        }
        assertEquals(2 * 560, report.draw().getWidth(), "the picture's panels are drawn empty");
    }
}
