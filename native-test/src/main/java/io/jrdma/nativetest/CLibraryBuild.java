package io.jrdma.nativetest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Builds a shared library from a C source shipped beside a class, with {@code $CC} (or {@code cc}), into a fresh
 * temporary directory. The tests' native helpers come as source, so they are built for the machine that runs them.
 *
 * <pre>{@code
 * Path library = CLibraryBuild.build(TestProvider.class, "test-provider.c", "libtestprovider.so");
 * SymbolLookup lookup = SymbolLookup.libraryLookup(library, Arena.global());
 * }</pre>
 */
public final class CLibraryBuild {
    private CLibraryBuild() {
    }

    /**
     * Compiles the resource {@code source} of {@code owner}'s package into {@code library}, in a new temporary
     * directory, which also holds the source; the caller deletes them when done.
     */
    public static Path build(Class<?> owner, String source, String library) {
        try {
            Path dir = Files.createTempDirectory("jrdma-" + library.replace(".so", ""));
            Path sourceFile = dir.resolve(source);
            Path libraryFile = dir.resolve(library);
            try (InputStream in = owner.getResourceAsStream(source)) {
                if (in == null) {
                    throw new IOException("no resource " + source + " beside " + owner.getName());
                }
                Files.write(sourceFile, in.readAllBytes());
            }
            String compiler = System.getenv().getOrDefault("CC", "cc");
            List<String> command = List.of(compiler, "-std=gnu11", "-O2", "-Wall", "-Werror", "-shared", "-fPIC",
                    "-o", libraryFile.toString(), sourceFile.toString());
            Command.run(dir, command, Duration.ofMinutes(2));
            return libraryFile;
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("cannot build " + library + ": " + e.getMessage(), e);
        }
    }

    /** Deletes a library made by {@link #build}, with its source and directory. */
    public static void delete(Path library) throws IOException {
        Path dir = library.getParent();
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(dir);
    }
}
