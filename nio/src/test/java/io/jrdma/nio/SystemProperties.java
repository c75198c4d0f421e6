package io.jrdma.nio;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs an unchanged application ({@link UnchangedEchoApp}, {@link UnchangedJettyApp}) in a child JVM whose default
 * provider is this one, switched on by system properties.
 */
final class SystemProperties {
    private SystemProperties() {
    }

    /**
     * The child's output, after checking it ended well with jrdma-nio as its provider: status 0, and
     * {@code lastLine} last.
     *
     * @param app        the application's main class, which prints its provider first
     * @param lastLine   what the application prints last when all went well
     * @param address    what the app binds to
     * @param properties the {@code -D} options besides the provider's
     */
    static String runUnchangedApp(Class<?> app, String lastLine, String address, String... properties)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Djava.nio.channels.spi.SelectorProvider=" + RdmaSelectorProvider.class.getName()));
        command.addAll(List.of(properties));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), app.getName(), address));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes());
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("provider " + RdmaSelectorProvider.class.getName()), output);
        assertTrue(output.endsWith(lastLine + "\n"), output);
        return output;
    }
}
