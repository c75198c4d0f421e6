package io.jrdma.tool.perf;

import picocli.CommandLine;

import java.util.List;

/** Options as the tool's command line gives them, for tests. */
final class Parsed {
    private Parsed() {
    }

    static PerfOptions perf(List<String> args) {
        PerfCommand command = new PerfCommand(null, null);
        new CommandLine(command).parseArgs(args.toArray(String[]::new));
        return command.options();
    }

    static BlocksOptions blocks(List<String> args) {
        BlocksCommand command = new BlocksCommand(null, null);
        new CommandLine(command).parseArgs(args.toArray(String[]::new));
        return command.options();
    }

    static EndpointPerfOptions endpoint(List<String> args) {
        EndpointPerfCommand command = new EndpointPerfCommand(null, null);
        new CommandLine(command).parseArgs(args.toArray(String[]::new));
        return command.options();
    }
}
