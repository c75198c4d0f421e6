package io.jrdma.nativetest.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A JVM started from this one's class path to run {@code mainClass}, so that a test can watch it survive (or crash)
 * without being taken down with it: fatal-error logs go to a directory of their own, which a run that did not crash
 * leaves empty. One still running at its time limit prints its threads' stacks, is killed, and fails the test with
 * its output.
 *
 * @param run    its exit status and everything it printed
 * @param hsErrs the fatal-error logs it wrote (none unless it crashed)
 */
public record ChildJvm(ToolRun run, List<Path> hsErrs) {

    public static ChildJvm run(Class<?> mainClass, int seconds, String... args) throws Exception {
        return run(mainClass, seconds, Map.of(), List.of(), args);
    }

    /** With {@code env} added to the environment and {@code options} given to the JVM. */
    public static ChildJvm run(Class<?> mainClass, int seconds, Map<String, String> env, List<String> options,
                        String... args) throws Exception {
        Path errors = Files.createTempDirectory("jrdma-hs-err");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:ErrorFile=" + errors.resolve("hs_err_%p.log")));
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(List.of(args));
        ToolRun run = ToolRun.process(command, env, seconds, true);
        try (Stream<Path> logs = Files.list(errors)) {
            return new ChildJvm(run, logs.toList());
        }
    }
}
