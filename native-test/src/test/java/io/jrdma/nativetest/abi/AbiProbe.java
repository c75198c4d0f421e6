package io.jrdma.nativetest.abi;

import io.jrdma.nativetest.Command;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.UnionLayout;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Turns every struct, union and constant of one generated bindings package into probes: a C expression over the
 * installed headers and the number the Java bindings carry for it. {@link #run} compiles and runs the C side.
 */
final class AbiProbe {
    /** How long compiling the probe, or running it, may take. */
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    /** One number to compare: {@code cExpression} evaluated by the C compiler against {@code javaValue}. */
    record Probe(String key, String cExpression, long javaValue, int javaBits) {
    }

    private final List<Probe> probes = new ArrayList<>();
    private final TreeSet<String> types = new TreeSet<>();
    private final TreeSet<String> fields = new TreeSet<>();

    List<Probe> probes() {
        return probes;
    }

    /** The C spellings of the types probed, e.g. {@code struct ibv_wc}. */
    TreeSet<String> types() {
        return types;
    }

    /** {@code type.path} of every field probed, e.g. {@code struct ibv_send_wr.wr.rdma.rkey}. */
    TreeSet<String> fields() {
        return fields;
    }

    /** Adds the probes for every top-level class of {@code headerClass}'s package. */
    AbiProbe addPackage(Class<?> headerClass) throws IOException, ReflectiveOperationException {
        String pkg = headerClass.getPackageName();
        for (String name : classNames(headerClass)) {
            Class<?> c = Class.forName(pkg + "." + name, false, headerClass.getClassLoader());
            Method layout = findLayoutMethod(c);
            if (layout != null) {
                addType(name, (GroupLayout) layout.invoke(null));
            }
        }
        for (Class<?> c = headerClass; c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (isConstant(c, m)) {
                    Object v = m.invoke(null);
                    long value = v instanceof Character ch ? ch : ((Number) v).longValue();
                    int bits = m.getReturnType() == long.class ? 64 : m.getReturnType() == int.class ? 32
                            : m.getReturnType() == short.class || m.getReturnType() == char.class ? 16 : 8;
                    probes.add(new Probe("const " + m.getName(), m.getName(), value, bits));
                }
            }
        }
        return this;
    }

    private static Method findLayoutMethod(Class<?> c) {
        try {
            Method m = c.getMethod("layout");
            return Modifier.isStatic(m.getModifiers()) && GroupLayout.class.isAssignableFrom(m.getReturnType()) ? m : null;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** A jextract constant: a public static no-arg method returning a primitive, with no {@code $handle} twin. */
    private static boolean isConstant(Class<?> c, Method m) {
        if (!Modifier.isPublic(m.getModifiers()) || !Modifier.isStatic(m.getModifiers())
                || m.getParameterCount() != 0 || !m.getReturnType().isPrimitive() || m.getReturnType() == void.class
                || m.getName().contains("$")) {
            return false;
        }
        try {
            c.getMethod(m.getName() + "$handle");
            return false;
        } catch (NoSuchMethodException e) {
            return true;
        }
    }

    private void addType(String className, GroupLayout layout) {
        // A class for a typedef (pthread_mutex_t, __pthread_list_t) has a layout named otherwise, or anonymous:
        // C spells it by the typedef name; the rest by their tag.
        String c = layout.name().filter(className::equals).isEmpty() ? className
                : (layout instanceof UnionLayout ? "union " : "struct ") + className;
        types.add(c);
        probes.add(new Probe("sizeof " + c, "sizeof(" + c + ")", layout.byteSize(), 64));
        probes.add(new Probe("alignof " + c, "_Alignof(" + c + ")", layout.byteAlignment(), 64));
        addFields(c, layout, "", 0);
    }

    private void addFields(String type, GroupLayout group, String prefix, long base) {
        List<MemoryLayout> members = group.memberLayouts();
        for (int i = 0; i < members.size(); i++) {
            MemoryLayout m = members.get(i);
            if (m instanceof PaddingLayout) {
                continue;
            }
            long offset = base + group.byteOffset(MemoryLayout.PathElement.groupElement(i));
            String name = m.name().orElseThrow(() -> new IllegalStateException("unnamed member in " + type));
            if (name.startsWith("$anon$")) {
                // An anonymous struct/union member: its fields are reached without a name in C.
                addFields(type, (GroupLayout) m, prefix, offset);
                continue;
            }
            String path = prefix + name;
            fields.add(type + "." + path);
            probes.add(new Probe("offsetof " + type + "." + path, "offsetof(" + type + ", " + path + ")", offset, 64));
            probes.add(new Probe("sizeof " + type + "." + path, "sizeof(((" + type + " *)0)->" + path + ")",
                    m.byteSize(), 64));
            if (m instanceof GroupLayout g) {
                addFields(type, g, path + ".", offset);
            }
        }
    }

    /** Simple names of the top-level classes in {@code headerClass}'s package, from a directory or a jar. */
    private static List<String> classNames(Class<?> headerClass) throws IOException {
        URI uri;
        try {
            uri = headerClass.getResource(headerClass.getSimpleName() + ".class").toURI();
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
        if (uri.getScheme().equals("jar")) {
            try (FileSystem fs = FileSystems.newFileSystem(uri, Map.of())) {
                return list(fs.getPath(headerClass.getPackageName().replace('.', '/')));
            }
        }
        return list(Path.of(uri).getParent());
    }

    private static List<String> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".class") && !n.contains("$"))
                    .map(n -> n.substring(0, n.length() - ".class".length()))
                    .sorted().toList();
        }
    }

    /**
     * Writes the C program for the probes to {@code dir}, compiles it with {@code cc} against the installed
     * headers, runs it, and returns key → value as C computed it.
     */
    Map<String, Long> run(Path dir, List<String> includes) throws IOException, InterruptedException {
        StringBuilder c = new StringBuilder("/* Generated by the jrdma ABI conformance test. */\n");
        c.append("#include <stddef.h>\n#include <stdio.h>\n#include <pthread.h>\n");
        for (String include : includes) {
            c.append("#include <").append(include).append(">\n");
        }
        c.append("#define P(key, expr) printf(\"%s\\t%lld\\n\", key, (long long)(expr))\n");
        c.append("int main(void) {\n");
        for (Probe p : probes) {
            c.append("    P(\"").append(p.key()).append("\", ").append(p.cExpression()).append(");\n");
        }
        c.append("    return 0;\n}\n");
        Files.createDirectories(dir);
        Path source = dir.resolve("abi-probe.c");
        Path binary = dir.resolve("abi-probe");
        Files.writeString(source, c);
        String compiler = System.getenv().getOrDefault("CC", "cc");
        Command.run(dir, List.of(compiler, "-std=gnu11", "-Wall", "-Werror", "-o", binary.toString(),
                source.toString()), TIMEOUT);
        Map<String, Long> result = new LinkedHashMap<>();
        for (String line : Command.run(dir, List.of(binary.toString()), TIMEOUT).split("\n")) {
            int tab = line.indexOf('\t');
            result.put(line.substring(0, tab), Long.parseLong(line.substring(tab + 1)));
        }
        return result;
    }
}
