package io.jrdma.examples;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code jrdma pingpong {rc,uc,ud,srq} [OPTIONS] [SERVER]}: rdma-core's {@code ibv_*_pingpong} examples in Java,
 * wire-compatible with them in either role.
 *
 * <pre>{@code
 * new PingPongCommand(System.out).run(List.of("rc", "-g", "1", "-c"));   // server; the client adds its host
 * }</pre>
 */
final class PingPongCommand {
    private final PrintStream out;

    PingPongCommand(PrintStream out) {
        this.out = out;
    }

    int run(List<String> args) throws Exception {
        if (args.isEmpty() || isHelp(args.getFirst())) {
            out.println("usage: jrdma pingpong {rc,uc,ud,srq} [OPTIONS] [SERVER]"
                    + "  (jrdma pingpong VARIANT -h lists the options)");
            return args.isEmpty() ? 2 : 0;
        }
        if (args.stream().anyMatch(PingPongCommand::isHelp)) {
            out.println(PingPongOptions.usage(PingPongOptions.parse(args.subList(0, 1)).variant()));
            return 0;
        }
        try (PingPong pingPong = PingPong.of(PingPongOptions.parse(args), out)) {
            return pingPong.run();
        }
    }

    private static boolean isHelp(String arg) {
        return arg.equals("-h") || arg.equals("--help");
    }
}
