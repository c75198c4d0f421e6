package io.jrdma.examples;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code jrdma perf {send,write,read,atomic}-{lat,bw} [OPTIONS] [SERVER]}: perftest's {@code ib_*_lat} and
 * {@code ib_*_bw} in Java, with their main options and their result tables (or {@code --json}). Without SERVER it
 * waits for a client; the client measures, and the server prints what it measured too (ping-pongs) or the client's
 * bandwidth results.
 *
 * <pre>{@code
 * $ jrdma perf write-lat -x 1 -s 64               # server
 * $ jrdma perf write-lat -x 1 -s 64 10.0.2.15     # client
 * }</pre>
 */
final class PerfCommand {
    private final PrintStream out;
    private final PrintStream err;

    PerfCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(List<String> args) throws Exception {
        if (args.isEmpty() || args.stream().anyMatch(a -> a.equals("-h") || a.equals("--help"))) {
            out.println(PerfOptions.usage());
            return args.isEmpty() ? 2 : 0;
        }
        PerfOptions options = PerfOptions.parse(args);
        PerfReport report = new PerfReport(options, out);
        if (!options.client() && !options.json()) {
            out.println("\n************************************\n* Waiting for client to connect... *\n"
                    + "************************************");
        }
        // Progress only where someone watches: never into a pipe, a file or a test's captured output.
        PrintStream progress = System.console() != null ? err : null;
        try (PerfLink link = PerfLink.open(options);
             PerfSession session = new PerfSession(options, link, report, progress)) {
            report.banner(link.context().device().name(), link.linkType(), link.gidIndex());
            session.run();
        }
        report.finish();
        return 0;
    }
}
