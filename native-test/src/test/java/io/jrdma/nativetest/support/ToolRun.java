package io.jrdma.nativetest.support;

import io.jrdma.tool.Jrdma;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.fail;

/** How a command-line tool ran in an interop test: its exit status and everything it printed. */
public record ToolRun(int status, String output) {

    /** {@code jrdma LINE} on a daemon thread, so that a hung exchange cannot keep the JVM alive. */
    public static CompletableFuture<ToolRun> jrdma(List<String> line) {
        CompletableFuture<ToolRun> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            int status = Jrdma.run(line, out, out);
            result.complete(new ToolRun(status, bytes.toString(StandardCharsets.UTF_8)));
        }, "jrdma-" + line.getFirst());
        t.setDaemon(true);
        t.start();
        return result;
    }

    /** {@link #process} on a daemon thread: for a C server that the test talks to meanwhile. */
    public static CompletableFuture<ToolRun> start(List<String> command, int seconds) {
        return inBackground("run-" + command.getFirst(), () -> process(command, seconds));
    }

    /** {@code action} on a daemon thread of its own, so that a hung exchange cannot keep the JVM alive. */
    public static <T> CompletableFuture<T> inBackground(String name, Attempt<T> action) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name(name).start(() -> {
            try {
                result.complete(action.run());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** Something that runs to a result, or fails. */
    @FunctionalInterface
    public interface Attempt<T> {
        T run() throws Exception;
    }

    /**
     * Runs a client until the server listens: a server JVM or process that is still starting refuses it (no one
     * listens yet), which is not what is tested here. {@code refused} tells such a result.
     */
    public static <T> T untilListening(Attempt<T> client, Predicate<T> refused) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            T run = client.run();
            if (!refused.test(run)) {
                return run;
            }
            if (System.nanoTime() > deadline) {
                fail("the server never listened: " + run);
            }
            Thread.sleep(500);
        }
    }

    /**
     * Runs the C tool {@code command} to its end (at most {@code seconds}); one still running then is killed, and the
     * test fails with what it printed.
     */
    public static ToolRun process(List<String> command, int seconds) throws Exception {
        return process(command, Map.of(), seconds, false);
    }

    /**
     * Runs {@code command} with {@code env} added to this process's environment. A {@code jvm} still running at the
     * limit is first asked for its threads' stacks (SIGQUIT, which a C tool would die of), so that a hang says where.
     */
    static ToolRun process(List<String> command, Map<String, String> env, int seconds, boolean jvm) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process p = builder.start();
        // On a thread of its own: the common pool may be busy with another test's abandoned work. What a killed
        // process printed ends when its pipe closes.
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, r -> Thread.ofPlatform().daemon().start(r));
        try {
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                if (jvm) {
                    new ProcessBuilder("kill", "-QUIT", Long.toString(p.pid())).start().waitFor();
                    p.waitFor(5, TimeUnit.SECONDS);
                }
                p.destroyForcibly().waitFor();
                fail(command.getFirst() + " still running after " + seconds + " s, so killed; it printed:\n"
                        + output.get(10, TimeUnit.SECONDS));
            }
            return new ToolRun(p.exitValue(), output.get(10, TimeUnit.SECONDS));
        } finally {
            p.destroyForcibly();
        }
    }
}
