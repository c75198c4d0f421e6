package io.jrdma.tool;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * A {@code jrdma} command: where it prints, its {@code -h, --help}, and the checks of its option values, refused as
 * usage errors that name the option ({@code -p must be 1 to 65535, not 0}).
 */
public abstract class ToolCommand implements Callable<Integer> {
    /** Where the command prints its results. */
    protected final PrintStream out;
    /** Where the command prints what is not a result: progress, warnings. */
    protected final PrintStream err;

    @Spec
    private CommandSpec spec;

    /** Not picocli's standard help mixin: that one adds {@code -V}, which rping already takes (validate). */
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    protected ToolCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** This command's usage, for a command that was given nothing to do. */
    protected final String usageMessage() {
        return spec.commandLine().getUsageMessage();
    }

    /** {@code value}, if it lies in {@code [min, max]}. */
    public final int check(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw usage(option + " must be " + min + " to " + max + ", not " + value);
        }
        return value;
    }

    /** {@code value}, a whole number in {@code [min, max]}: for the items of a list option. */
    protected final int parse(String option, String value, int min, int max) {
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException notANumber) {
            // refused below, like a number out of range
        }
        throw usage(option + " must be " + min + " to " + max + ", not '" + value + "'");
    }

    /** A usage error of this command: jrdma prints it with a pointer to the command's help. */
    public final ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
