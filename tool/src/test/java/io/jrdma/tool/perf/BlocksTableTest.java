package io.jrdma.tool.perf;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlocksTableTest {
    private static final BlockLayout LAYOUT = new BlockLayout(1024, 8, 2048);
    private static final BlocksResult ZERO_COPY = new BlocksResult(LAYOUT, BlocksMode.SEND, false, 8, 1000, 50, 100.0,
            90.0, 128.0, 60.0, 20.0, 120.0, 110.0, 0);

    @Test
    void theBandwidthIsThePayloadOverTheAverageTime() {
        assertEquals(8192 / 128e-6 / (1 << 20), ZERO_COPY.mbPerSecond(), 1e-9);
        assertEquals("zero-copy", ZERO_COPY.variant());
    }

    @Test
    void aTableRowPerModeAndVariant() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BlocksTable table = new BlocksTable(Parsed.blocks(List.of("--block-size", "1024", "--blocks", "8")),
                "rxe0", new PrintStream(bytes, true, StandardCharsets.UTF_8));
        table.banner("Ethernet", 1);
        table.add(ZERO_COPY);
        table.finish();
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        int header = lines.indexOf(BlocksTable.HEADER);
        assertTrue(header > 0, String.join("\n", lines));
        assertEquals(List.of("1024", "8", "2048", "send", "zero-copy", "8", "100.00", "90.00", "61.04", "60.00",
                "20.00"), List.of(lines.get(header + 1).strip().split("\\s+")));
        assertTrue(lines.contains(" Layout          : 8 blocks of 1024 B, stride 2048 B: 8192 B of payload in 15360 B"));
    }

    @Test
    void jsonHasEveryValueOfARow() {
        BlocksTable table = new BlocksTable(Parsed.blocks(List.of("--json", "--warmup", "50")), "rxe0",
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        table.banner("Ethernet", 1);
        table.add(ZERO_COPY);
        assertEquals("{\"test\":\"blocks\",\"device\":\"rxe0\",\"warmup\":50,\"results\":[{\"block_size\":1024,"
                + "\"blocks\":8,\"stride\":2048,\"payload_bytes\":8192,\"mode\":\"send\",\"variant\":\"zero-copy\","
                + "\"sges\":8,\"iterations\":1000,\"warmup_iterations\":50,\"t_median_usec\":100.000,"
                + "\"t_min_usec\":90.000,\"t_avg_usec\":128.000,\"bw_mb_per_sec\":61.035,\"cpu_client_usec\":60.000,"
                + "\"cpu_server_usec\":20.000,\"cpu_client_total_usec\":120.000,\"cpu_server_total_usec\":110.000,"
                + "\"checked\":true,\"transport_retries\":0}]}", table.json());
    }
}
