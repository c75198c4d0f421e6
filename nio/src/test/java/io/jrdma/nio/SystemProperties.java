package io.jrdma.nio;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

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
        List<String> options = new ArrayList<>(List.of(
                "-Djava.nio.channels.spi.SelectorProvider=" + RdmaSelectorProvider.class.getName()));
        options.addAll(List.of(properties));
        ChildJvm child = ChildJvm.run(app, 120, options, address);
        String output = child.output();
        assertEquals(0, child.status(), output);
        assertTrue(output.contains("provider " + RdmaSelectorProvider.class.getName()), output);
        assertTrue(output.endsWith(lastLine + "\n"), output);
        return output;
    }
}
