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

    /**
     * Makes a command that prints to the given streams.
     *
     * @param out where results go
     * @param err where progress and warnings go
     */
    protected ToolCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** {@return this command's usage, for a command that was given nothing to do} */
    protected final String usageMessage() {
        return spec.commandLine().getUsageMessage();
    }

    /**
     * Checks an option's value.
     *
     * @param option the option's name, for the message
     * @param value the value given
     * @param min the least value allowed
     * @param max the greatest value allowed
     * @return {@code value}
     * @throws ParameterException a usage error if {@code value} is outside {@code [min, max]}
     */
    public final int check(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw usage(option + " must be " + min + " to " + max + ", not " + value);
        }
        return value;
    }

    /**
     * Reads one item of a list option as a whole number.
     *
     * @param option the option's name, for the message
     * @param value the item as given
     * @param min the least value allowed
     * @param max the greatest value allowed
     * @return the number
     * @throws ParameterException a usage error if {@code value} is not a number in {@code [min, max]}
     */
    public final int parse(String option, String value, int min, int max) {
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

    /**
     * Makes a usage error of this command: jrdma prints it with a pointer to the command's help and exits 2.
     *
     * @param message what is wrong, naming the option
     * @return the exception to throw
     */
    public final ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
