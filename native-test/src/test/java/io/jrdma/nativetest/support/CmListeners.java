package io.jrdma.nativetest.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/** Whether a connection manager id listens on a port on this machine, from the kernel's resource table (no probe). */
public final class CmListeners {
    private CmListeners() {
    }

    /**
     * True if an RDMA CM id is in state LISTEN on {@code port}. A C client started before its server listens fails in
     * ways that depend on timing (rsockets reports the same reject as a refused connect or as a failed
     * {@code rpoll}), so tests wait for the table rather than guess from the client's words.
     */
    public static boolean listening(int port) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("rdma", "resource", "show", "cm_id").redirectErrorStream(true).start();
        String table = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("rdma resource show cm_id failed: " + table);
        }
        Pattern listener = Pattern.compile("\\bstate LISTEN\\b.*\\bsrc-addr \\S*:" + port + "(\\s|$)");
        return table.lines().anyMatch(row -> listener.matcher(row).find());
    }
}
