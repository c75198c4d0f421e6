package io.jrdma.nio;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs an unchanged application ({@link UnchangedEchoApp}, {@link UnchangedJettyApp}) in a child JVM whose default
 * provider is this one, switched on by system properties.
 */
final class SystemProperties {
    /**
     * How long the child may run before it counts as hung and is killed. The Jetty application is the slowest: in the
     * VM, beside another VM as the full test run has it, it took 81 to 163 s over 10 runs (one more killed at the
     * old bound of 120 s, in the middle of its exchanges), and a full run on a busy host went past 120 s too.
     */
    private static final int LIMIT_SECONDS = 300;

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
        List<String> options = new ArrayList<>(List.of(
                "-Djava.nio.channels.spi.SelectorProvider=" + RdmaSelectorProvider.class.getName()));
        options.addAll(List.of(properties));
        ChildJvm child = ChildJvm.run(app, LIMIT_SECONDS, options, address);
        String output = child.output();
        assertNotEquals(-1, child.status(),
                () -> "still running after " + LIMIT_SECONDS + " s, so killed; it printed: " + output);
        assertEquals(0, child.status(), output);
        assertTrue(output.contains("provider " + RdmaSelectorProvider.class.getName()), output);
        assertTrue(output.endsWith(lastLine + "\n"), output);
        return output;
    }
}
