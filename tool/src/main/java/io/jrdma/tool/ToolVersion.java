package io.jrdma.tool;

import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** What {@code jrdma --version} prints: the version the build wrote into {@code version.properties}. */
final class ToolVersion implements IVersionProvider {

    @Override
    public String[] getVersion() {
        return new String[] {"jrdma " + version()};
    }

    static String version() {
        try (InputStream in = ToolVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
