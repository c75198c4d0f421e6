package io.jrdma.tool;

import io.jrdma.tool.perf.BlocksCommand;
import io.jrdma.tool.perf.EndpointPerfCommand;
import io.jrdma.tool.perf.PerfCommand;
import io.jrdma.tool.pingpong.PingPongCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;

/**
 * The {@code jrdma} command-line tool.
 *
 * {@snippet lang=shell :
 * $ scripts/jrdma devices -v
 * $ scripts/jrdma pingpong rc -g 1 10.0.2.15
 * }
 *
 * <p>Usage errors are one line on stderr and exit 2; other failures one line and exit 1, with the stack trace under
 * {@code --debug}.
 */
@Command(name = "jrdma", versionProvider = ToolVersion.class, sortOptions = false,
        description = "RDMA devices, connections and benchmarks, through jrdma's Java binding of libibverbs and "
                + "librdmacm.",
        footer = "Run 'jrdma COMMAND --help' for a command's options.")
public final class Jrdma extends ToolCommand {
    private static final int USAGE = 2;
    private static final int WIDTH = 100;

    @Option(names = "--version", versionHelp = true, description = "print the version and exit")
    private boolean version;

    @Option(names = "--debug", scope = ScopeType.INHERIT, description = "print the stack trace of a failure")
    private boolean debug;

    private Jrdma(PrintStream out, PrintStream err) {
        super(out, err);
    }

    /**
     * Runs the tool and exits with its status: 0 on success, 1 when the command failed, 2 on a usage error.
     *
     * @param args the command line, e.g. {@code perf write-lat -d rxe0}
     */
    public static void main(String[] args) {
        System.exit(run(List.of(args), System.out, System.err));
    }

    /**
     * Runs one command line in this JVM.
     *
     * @param args the command line, without the program name
     * @param out where results go
     * @param err where usage, progress and errors go
     * @return the exit status: 0 on success, 1 when the command failed, 2 on a usage error
     */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        Jrdma jrdma = new Jrdma(out, err);
        CommandLine line = new CommandLine(jrdma)
                .addSubcommand(new DevicesCommand(out, err))
                .addSubcommand(new DemoCommand(out, err))
                .addSubcommand(new HelloCommand(out, err))
                .addSubcommand(PingPongCommand.commandLine(out, err))
                .addSubcommand(new RpingCommand(out, err))
                .addSubcommand(new PerfCommand(out, err))
                .addSubcommand(new BlocksCommand(out, err))
                .addSubcommand(new EndpointPerfCommand(out, err))
                .addSubcommand(new StreamCommand(out, err))
                .addSubcommand(new RstreamCommand(out, err));
        line.setUsageHelpWidth(WIDTH)
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .setParameterExceptionHandler(Jrdma::usageError)
                .setExecutionExceptionHandler((e, command, parsed) -> failure(e, jrdma.debug, err));
        return line.execute(args.toArray(String[]::new));
    }

    /** Bare {@code jrdma}: the usage, as an error. */
    @Override
    public Integer call() {
        err.print(usageMessage());
        return USAGE;
    }

    private static int usageError(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        String name = command.getCommandSpec().qualifiedName();
        err.println(name + ": " + unknownCommand(e).map(c -> "unknown command '" + c + "'").orElse(e.getMessage()));
        err.println("Try '" + name + " --help' for more information.");
        return USAGE;
    }

    /** The word that should have named a subcommand, if that is what {@code e} is about. */
    private static Optional<String> unknownCommand(ParameterException e) {
        if (e instanceof UnmatchedArgumentException u && !e.getCommandLine().getSubcommands().isEmpty()
                && !u.getUnmatched().isEmpty() && !u.getUnmatched().getFirst().startsWith("-")) {
            return Optional.of(u.getUnmatched().getFirst());
        }
        return Optional.empty();
    }

    /** A failure while running: one line; an argument only the device could refuse is still a usage error. */
    private static int failure(Exception e, boolean debug, PrintStream err) {
        err.println("jrdma: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
        if (debug) {
            e.printStackTrace(err);
        }
        return e instanceof IllegalArgumentException ? USAGE : 1;
    }
}
