package io.jrdma.examples;

import java.util.List;

/**
 * Option values of a {@code jrdma} command, refused with one clear line naming the command and the option.
 *
 * <pre>{@code
 * case "-n" -> iterations = Args.number("demo", "-n", Args.value("demo", args, i++), 1, Integer.MAX_VALUE);
 * }</pre>
 */
final class Args {
    private Args() {
    }

    /** The value after the option at {@code i}. */
    static String value(String command, List<String> args, int i) {
        if (i + 1 >= args.size()) {
            throw new IllegalArgumentException(command + ": " + args.get(i) + " needs a value");
        }
        return args.get(i + 1);
    }

    /** {@code v} as a number in {@code [min, max]}. */
    static int number(String command, String option, String v, int min, int max) {
        try {
            int n = Integer.parseInt(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // said below
        }
        throw new IllegalArgumentException(command + ": " + option + " must be " + min + " to " + max + ", not '"
                + v + "'");
    }
}
