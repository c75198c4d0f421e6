package io.jrdma.nativetest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short external command (a C compiler, a probe it built) with a time limit that holds even if it hangs. */
public final class Command {
    private Command() {
    }

    /**
     * Runs {@code command} in {@code dir} and returns what it printed, standard output and error together.
     *
     * @throws IOException if it cannot start, exits non-zero, or does not finish within {@code timeout} (it is killed
     *                     then); the message carries its output
     */
    public static String run(Path dir, List<String> command, Duration timeout)
            throws IOException, InterruptedException {
        // The output goes to a file rather than a pipe read here: such a read returns only when the command ends,
        // so a hung command would hang the caller before its timeout could fire.
        Path log = Files.createTempFile("jrdma-command", ".log");
        try {
            Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            try {
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IOException(String.join(" ", command) + " did not finish within " + timeout
                            + "; killed it. Its output so far:\n" + read(log));
                }
            } finally {
                // Also when the wait was interrupted: the command must not outlive the attempt.
                if (p.isAlive()) {
                    p.destroyForcibly().waitFor();
                }
            }
            String out = read(log);
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed with exit status " + p.exitValue()
                        + ":\n" + out);
            }
            return out;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static String read(Path log) throws IOException {
        return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
    }
}
