package io.jrdma.tool.perf;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The device's count of transport retries: requests sent again after the local ACK timeout. Each one stalls its queue
 * pair for the whole timeout (some 67 ms by default), so a few of them can outweigh a short measurement; {@code jrdma
 * perf} reads the count around its measured run and reports the difference. The count is the driver's own, from
 * sysfs ({@code ports/N/hw_counters}): Soft-RoCE's {@code completer_retry_err}, mlx5's {@code local_ack_timeout_err};
 * it covers every queue pair of the device, so it is the measurement's only while nothing else runs on it.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=transport-retries}
 */
final class TransportRetries {
    /** The counter's name in the drivers that expose one. */
    static final List<String> COUNTERS = List.of("completer_retry_err", "local_ack_timeout_err");

    private final List<Path> files;

    private TransportRetries(List<Path> files) {
        this.files = List.copyOf(files);
    }

    /** The counters of device {@code name} under the usual sysfs root. */
    static TransportRetries of(String name) {
        return under(Path.of("/sys/class/infiniband", name));
    }

    /** The counters of the device whose sysfs directory is {@code device}; none when it has no such counter. */
    static TransportRetries under(Path device) {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ports = Files.newDirectoryStream(device.resolve("ports"))) {
            for (Path port : ports) {
                for (String counter : COUNTERS) {
                    Path f = port.resolve("hw_counters").resolve(counter);
                    if (Files.isReadable(f)) {
                        files.add(f);
                    }
                }
            }
        } catch (IOException e) {
            // No sysfs entry (another OS, a test provider): nothing to count.
        }
        return new TransportRetries(files);
    }

    /** The device's retries so far, or -1 when it exposes no counter or one cannot be read. */
    long read() {
        if (files.isEmpty()) {
            return -1;
        }
        long sum = 0;
        for (Path f : files) {
            try {
                sum += Long.parseLong(Files.readString(f).strip());
            } catch (IOException | NumberFormatException e) {
                return -1;
            }
        }
        return sum;
    }

    /** The retries since {@code before} (a {@link #read()}), or -1 when either count is unknown. */
    long since(long before) {
        long now = read();
        return before < 0 || now < 0 ? -1 : now - before;
    }
}
