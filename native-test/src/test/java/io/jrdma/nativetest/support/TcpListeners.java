package io.jrdma.nativetest.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Whether a TCP port has a listener on this machine, from the kernel's socket tables (no probe connection). */
public final class TcpListeners {
    private TcpListeners() {
    }

    /**
     * True if a socket listens on TCP {@code port} (IPv4 or IPv6). Servers that accept one connection only (the C
     * ping-pongs) would take a probe connection for their client, hence the tables.
     */
    public static boolean listening(int port) throws IOException {
        String hexPort = String.format(Locale.ROOT, ":%04X ", port);
        for (Path table : List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"))) {
            for (String row : Files.exists(table) ? Files.readAllLines(table) : List.<String>of()) {
                String[] f = row.trim().split("\\s+");
                // local_address is field 1, st (0A = LISTEN) field 3
                if (f.length > 3 && (f[1] + " ").endsWith(hexPort) && f[3].equals("0A")) {
                    return true;
                }
            }
        }
        return false;
    }
}
