package io.jrdma.nio;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A JVM started from this one's class path to run a main class, so that a test can watch it survive (or crash)
 * without being taken down with it: fatal-error logs go to a directory of their own, removed again when the run did
 * not crash.
 *
 * @param status its exit status, or -1 if it was killed at its time limit
 * @param output everything it printed, standard error included
 * @param hsErrs the fatal-error logs it wrote (none unless it crashed)
 */
record ChildJvm(int status, String output, List<Path> hsErrs) {

    /**
     * Runs {@code mainClass} with {@code args} and the JVM {@code options}; killed after {@code seconds}, once it
     * printed its threads' stacks.
     */
    static ChildJvm run(Class<?> mainClass, int seconds, List<String> options, String... args)
            throws IOException, InterruptedException {
        return run(List.of(), mainClass, seconds, options, args);
    }

    /**
     * {@link #run(Class, int, List, String...)} through {@code launcher}, a command that ends by running the rest
     * of its arguments (e.g. {@code unshare}).
     */
    static ChildJvm run(List<String> launcher, Class<?> mainClass, int seconds, List<String> options, String... args)
            throws IOException, InterruptedException {
        Path errors = Files.createTempDirectory("jrdma-nio-hs-err");
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:ErrorFile=" + errors.resolve("hs_err_%p.log")));
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        // Read while it runs (a full pipe would stop it); what a killed child printed ends when its pipe closes.
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(child.getInputStream().readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        boolean ended = child.waitFor(seconds, TimeUnit.SECONDS);
        if (!ended) {
            // Its threads' stacks into its output first, so that a hang says where it hangs and a slow run how far
            // it got.
            new ProcessBuilder("kill", "-QUIT", Long.toString(child.pid())).start().waitFor();
            child.waitFor(5, TimeUnit.SECONDS);
            child.destroyForcibly().waitFor();
        }
        try (Stream<Path> logs = Files.list(errors)) {
            List<Path> hsErrs = logs.toList();
            if (hsErrs.isEmpty()) {
                Files.delete(errors); // only a crash's log is worth keeping
            }
            return new ChildJvm(ended ? child.exitValue() : -1, output.get(), hsErrs);
        } catch (ExecutionException e) {
            throw new IOException(e.getCause());
        }
    }

    /** Whether it ended by itself with status 0 and wrote no fatal-error log. */
    boolean endedNormally() {
        return status == 0 && hsErrs.isEmpty();
    }
}
