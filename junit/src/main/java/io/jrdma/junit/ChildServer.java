package io.jrdma.junit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A server in a JVM of its own, for tests that kill their peer: its main class runs with this JVM's class path and
 * native access, prints {@code listening PORT} once it listens, and runs until it is killed. Its other output is
 * not read.
 *
 * {@snippet class=io.jrdma.junit.snippets.RdmaDeviceTestSnippets region=child}
 */
public final class ChildServer implements AutoCloseable {
    private final Process process;
    private final int port;

    private ChildServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts {@code main} with {@code args} and waits for its {@code listening PORT} line.
     *
     * @param main the class whose {@code main} runs the server
     * @param args its arguments
     * @return the running server
     * @throws IOException if the JVM cannot start, or it ends or prints something else first
     */
    public static ChildServer start(Class<?> main, String... args) throws IOException {
        String[] command = new String[5 + args.length];
        command[0] = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        command[1] = "--enable-native-access=ALL-UNNAMED";
        command[2] = "-cp";
        command[3] = System.getProperty("java.class.path");
        command[4] = main.getName();
        System.arraycopy(args, 0, command, 5, args.length);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String line = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.US_ASCII)).readLine();
            if (line == null || !line.startsWith("listening ")) {
                throw new IOException(main.getName() + " printed " + line + " instead of its port");
            }
            return new ChildServer(process, Integer.parseInt(line.substring("listening ".length()).strip()));
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        }
    }

    /** {@return the port it printed} */
    public int port() {
        return port;
    }

    /**
     * Kills it (SIGKILL), as a crash would, and waits until it is gone.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    /** Kills it if it still runs, without waiting. */
    @Override
    public void close() {
        process.destroyForcibly();
    }
}
