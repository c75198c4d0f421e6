package io.jrdma.benchmarks.report;

import io.jrdma.benchmarks.report.NoncontiguousReport.Pair;
import io.jrdma.benchmarks.report.NoncontiguousReport.Row;
import org.junit.jupiter.api.Test;

import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NoncontiguousReportTest {
    /** As jrdma blocks --json prints it (two rows). */
    private static final String JSON = "{\"test\":\"blocks\",\"device\":\"rxe0\",\"warmup\":100,\"results\":["
            + "{\"block_size\":64,\"blocks\":4,\"stride\":128,\"payload_bytes\":256,\"mode\":\"write\","
            + "\"variant\":\"zero-copy\",\"sges\":4,\"iterations\":200,\"warmup_iterations\":100,"
            + "\"t_median_usec\":56.730,\"t_min_usec\":32.950,\"t_avg_usec\":129.000,\"bw_mb_per_sec\":1.890,"
            + "\"cpu_client_usec\":92.500,\"cpu_server_usec\":0.030,\"cpu_client_total_usec\":95.000,"
            + "\"cpu_server_total_usec\":0.040,\"checked\":true,\"transport_retries\":0},"
            + "{\"block_size\":64,\"blocks\":4,\"stride\":128,\"payload_bytes\":256,\"mode\":\"write\","
            + "\"variant\":\"packed\",\"sges\":1,\"iterations\":200,\"warmup_iterations\":100,"
            + "\"t_median_usec\":33.110,\"t_min_usec\":32.350,\"t_avg_usec\":69.000,\"bw_mb_per_sec\":3.520,"
            + "\"cpu_client_usec\":44.160,\"cpu_server_usec\":0.020,\"cpu_client_total_usec\":45.000,"
            + "\"cpu_server_total_usec\":0.030,\"checked\":true,\"transport_retries\":0}]}";

    @Test
    void readsJrdmaBlocksJson() {
        assertEquals(List.of(new Row(64, 4, 128, "write", false, 56.73, 32.95, 1.89, 92.5, 0.03),
                new Row(64, 4, 128, "write", true, 33.11, 32.35, 3.52, 44.16, 0.02)), NoncontiguousReport.rows(JSON));
        assertEquals(List.of(), NoncontiguousReport.rows("jrdma: blocks: completion failed"));
    }

    @Test
    void pairsEachLayoutsTwoWaysAndSaysWhichIsFaster() {
        List<Row> rows = rows();
        List<Pair> pairs = NoncontiguousReport.pairs(rows);
        assertEquals(12, pairs.size());
        assertEquals("write", pairs.getFirst().zeroCopy().mode());
        assertEquals("send", pairs.getLast().zeroCopy().mode());
        assertEquals(2.0, pairs.getFirst().ratio(), 1e-9);
        String md = NoncontiguousReport.markdown(Map.of("host_cores", "2", "wall", "9 min in the VM"), rows);
        assertTrue(md.contains("| write | 4 | 0 | 0 | 2.00 | 2.00 to 2.00 | 0 of 8 | 2.00 (2.00 to 2.00) |"), md);
        assertTrue(md.contains("| read | 0 | 4 | 0 | 0.50 | 0.50 to 0.50 |"), md);
        assertTrue(md.contains("| send | 0 | 0 | 4 | 1.00 | 1.00 to 1.00 |"), md);
        assertTrue(md.contains("| Host cores | 2 |"), md);
        assertTrue(md.contains("| 4 KiB | 32 | 128 KiB | 100.0 (80.0) | 200.0 (160.0) | **2.00** |"), md);
        assertTrue(md.contains("going from 4 to 32 of them adds"), md);
        assertTrue(md.contains("![Time per message by block size"), md);
        BufferedImage png = NoncontiguousPlot.draw(pairs);
        assertEquals(3 * 460, png.getWidth());
        assertEquals(2 * 440, png.getHeight());
    }

    /** write: packed twice as slow; read: packed twice as fast; send: a tie; 64 B and 4 KiB blocks, 4 and 32. */
    private static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (String mode : List.of("write", "read", "send")) {
            double packed = switch (mode) {
                case "write" -> 2.0;
                case "read" -> 0.5;
                default -> 1.0;
            };
            for (int size : List.of(64, 4096)) {
                for (int blocks : List.of(4, 32)) {
                    rows.add(new Row(size, blocks, 2 * size, mode, false, 100, 80, 10, 50, 5));
                    rows.add(new Row(size, blocks, 2 * size, mode, true, 100 * packed, 80 * packed, 10 / packed, 60,
                            6));
                }
            }
        }
        return rows;
    }
}
