package io.jrdma.tool.perf;

import java.io.PrintStream;

/**
 * One side of a {@code jrdma endpoint-perf} run, of whichever API: the client, which measures and prints, or the
 * server, which answers until the client leaves.
 */
abstract sealed class EndpointPerfSide permits EndpointPerf, ConnectionPerf {
    final EndpointPerfOptions options;
    final PrintStream out;

    EndpointPerfSide(EndpointPerfOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** Runs the side the options name: the client if they name a server to connect to. */
    final void run() throws Exception {
        if (options.client()) {
            client();
        } else {
            server();
        }
    }

    abstract void client() throws Exception;

    abstract void server() throws Exception;
}
