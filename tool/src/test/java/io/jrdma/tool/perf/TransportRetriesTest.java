package io.jrdma.tool.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TransportRetriesTest {

    @TempDir
    Path device;

    private void counter(int port, String name, String value) throws IOException {
        Path dir = Files.createDirectories(device.resolve("ports/" + port + "/hw_counters"));
        Files.writeString(dir.resolve(name), value);
    }

    @Test
    void sumsTheRetryCountersOfEveryPortAndCountsFromABaseline() throws IOException {
        counter(1, "completer_retry_err", "5\n");
        counter(2, "local_ack_timeout_err", "7\n");
        counter(1, "rcvd_pkts", "1000\n");
        TransportRetries retries = TransportRetries.under(device);
        long before = retries.read();
        assertEquals(12, before);
        counter(1, "completer_retry_err", "9\n");
        assertEquals(4, retries.since(before));
    }

    @Test
    void aDeviceWithoutTheCounterIsUnknownNotZero() throws IOException {
        assertEquals(-1, TransportRetries.under(device).read(), "no ports directory");
        counter(1, "rcvd_pkts", "1000\n");
        TransportRetries none = TransportRetries.under(device);
        assertEquals(-1, none.read());
        assertEquals(-1, none.since(0));
    }

    @Test
    void anUnreadableCountOrUnknownBaselineIsUnknown() throws IOException {
        counter(1, "completer_retry_err", "5\n");
        TransportRetries retries = TransportRetries.under(device);
        assertEquals(-1, retries.since(-1));
        counter(1, "completer_retry_err", "not a number\n");
        assertEquals(-1, retries.read());
    }
}
