package io.jrdma.rdmacm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.invoke.MethodHandles;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleReader;
import java.lang.module.ResolvedModule;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What applications can reach of jrdma on the module path: the exported API, never the lifecycle guard, the verbs
 * bridge or other plumbing of io.jrdma.ibverbs.internal, which only io.jrdma.rdmacm, io.jrdma.nio and
 * io.jrdma.endpoint read. Runs on the module path (see this module's pom), where the module descriptors are in force.
 */
class ModuleBoundaryTest {
    private static final String IBVERBS = "io.jrdma.ibverbs";
    private static final String RDMACM = "io.jrdma.rdmacm";
    private static final String INTERNAL = "io.jrdma.ibverbs.internal";
    /** The other reader of the internal package, not resolved here: its descriptor names it all the same. */
    private static final String NIO = "io.jrdma.nio";
    private static final String ENDPOINT = "io.jrdma.endpoint";
    /** What the lifecycle guard and the bridge do: no public type of the API may offer it. */
    private static final Set<String> PLUMBING = Set.of("enter", "exit", "enterAll", "exitAll", "checkOpen",
            "awaitEvent", "replaceParent", "ledger", "creationSite", "install", "hooks");

    private static Module module(String name) {
        return ModuleLayer.boot().findModule(name).orElseThrow(() -> new AssertionError(name + " is not a module"));
    }

    @Test
    void theTestsRunOnTheModulePathWithNativeAccessForEveryJrdmaModule() throws IllegalAccessException {
        assertEquals(RDMACM, getClass().getModule().getName());
        for (String name : List.of("io.jrdma.bindings", IBVERBS, RDMACM)) {
            assertTrue(module(name).isNativeAccessEnabled(), name + " has no native access: see the pom's argLine");
        }
        // Restricted calls in all three modules: the symbol lookup and downcalls of io.jrdma.bindings, the errno
        // capturing downcalls io.jrdma.ibverbs makes for io.jrdma.rdmacm, and io.jrdma.rdmacm's own reinterpret.
        assertEquals("RDMA_CM_EVENT_ESTABLISHED", CmEventType.ESTABLISHED.description());
        assertEquals(CmId.class, MethodHandles.lookup().ensureInitialized(CmId.class));
    }

    @Test
    void ibverbsExportsItsInternalPackageOnlyToRdmacmNioAndEndpoint() {
        ModuleDescriptor ibverbs = module(IBVERBS).getDescriptor();
        Map<String, Set<String>> exports = ibverbs.exports().stream()
                .collect(Collectors.toMap(ModuleDescriptor.Exports::source, ModuleDescriptor.Exports::targets));
        assertEquals(Map.of(IBVERBS, Set.of(), INTERNAL, Set.of(RDMACM, NIO, ENDPOINT)), exports);
        assertTrue(ibverbs.opens().isEmpty(), "opens " + ibverbs.opens());
        assertFalse(module(IBVERBS).isExported(INTERNAL));
        assertTrue(module(IBVERBS).isExported(INTERNAL, module(RDMACM)));
        ModuleDescriptor rdmacm = module(RDMACM).getDescriptor();
        assertEquals(Set.of(RDMACM), rdmacm.exports().stream().map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet()));
        assertTrue(rdmacm.exports().stream().noneMatch(ModuleDescriptor.Exports::isQualified));
    }

    @Test
    void noPublicTypeOfTheApiExposesInternalTypesOrTheGuardsMethods() throws IOException {
        List<String> leaks = new ArrayList<>();
        int checked = 0;
        for (String name : List.of(IBVERBS, RDMACM)) {
            for (Class<?> type : apiTypes(name)) {
                checked++;
                leaks.addAll(leaksOf(type));
            }
        }
        assertTrue(checked > 50, "found only " + checked + " public types: is the scan broken?");
        assertEquals(List.of(), leaks);
    }

    /** The public (and protected nested) types of {@code moduleName}'s unconditionally exported packages. */
    private static List<Class<?>> apiTypes(String moduleName) throws IOException {
        Module module = module(moduleName);
        ResolvedModule resolved = ModuleLayer.boot().configuration().findModule(moduleName).orElseThrow();
        List<Class<?>> types = new ArrayList<>();
        try (ModuleReader reader = resolved.reference().open(); Stream<String> entries = reader.list()) {
            for (String entry : entries.filter(e -> e.endsWith(".class") && !e.endsWith("module-info.class"))
                    .toList()) {
                String binaryName = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
                String pkg = binaryName.substring(0, binaryName.lastIndexOf('.'));
                if (!module.isExported(pkg)) {
                    continue;
                }
                Class<?> type = load(binaryName, module);
                if (isApi(type)) {
                    types.add(type);
                }
            }
        }
        return types;
    }

    private static Class<?> load(String binaryName, Module module) {
        try {
            return Class.forName(binaryName, false, module.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }

    private static boolean isApi(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getDeclaringClass()) {
            if (c.isAnonymousClass() || c.isLocalClass() || !isApi(c.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    private static boolean isApi(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static List<String> leaksOf(Class<?> type) {
        List<String> leaks = new ArrayList<>();
        List<Type> signature = new ArrayList<>(List.of(type.getGenericInterfaces()));
        if (type.getGenericSuperclass() != null) {
            signature.add(type.getGenericSuperclass());
        }
        signature.addAll(List.of(type.getTypeParameters()));
        check(type.getName(), signature, leaks);
        for (Field f : type.getDeclaredFields()) {
            if (isApi(f.getModifiers()) && !f.isSynthetic()) {
                check(type.getName() + "." + f.getName(), List.of(f.getGenericType()), leaks);
            }
        }
        List<Executable> executables = new ArrayList<>(List.of(type.getDeclaredConstructors()));
        executables.addAll(List.of(type.getDeclaredMethods()));
        for (Executable e : executables) {
            if (!isApi(e.getModifiers()) || e.isSynthetic()) {
                continue;
            }
            String where = type.getName() + "." + e.getName();
            if (e instanceof Method && PLUMBING.contains(e.getName())) {
                leaks.add(where + ": lifecycle or bridge plumbing in the API");
            }
            List<Type> types = new ArrayList<>(List.of(e.getGenericParameterTypes()));
            types.addAll(List.of(e.getGenericExceptionTypes()));
            types.addAll(List.of(e.getTypeParameters()));
            if (e instanceof Method m) {
                types.add(m.getGenericReturnType());
            }
            check(where, types, leaks);
        }
        return leaks;
    }

    private static void check(String where, List<Type> types, List<String> leaks) {
        Set<Type> seen = new HashSet<>();
        for (Type t : types) {
            for (Class<?> c : classesIn(t, seen)) {
                if (!c.getModule().isExported(c.getPackageName())) {
                    leaks.add(where + " exposes " + c.getName() + ", which " + c.getModule() + " does not export");
                }
            }
        }
    }

    /** The classes a (generic) type names, with its arguments, bounds and array components. */
    private static List<Class<?>> classesIn(Type t, Set<Type> seen) {
        if (!seen.add(t)) {
            return List.of();
        }
        List<Class<?>> classes = new ArrayList<>();
        switch (t) {
            case Class<?> c when c.isArray() -> classes.addAll(classesIn(c.getComponentType(), seen));
            case Class<?> c -> classes.add(c);
            case ParameterizedType p -> {
                classes.addAll(classesIn(p.getRawType(), seen));
                for (Type a : p.getActualTypeArguments()) {
                    classes.addAll(classesIn(a, seen));
                }
            }
            case GenericArrayType g -> classes.addAll(classesIn(g.getGenericComponentType(), seen));
            case WildcardType w -> {
                for (Type b : Stream.concat(Stream.of(w.getUpperBounds()), Stream.of(w.getLowerBounds())).toList()) {
                    classes.addAll(classesIn(b, seen));
                }
            }
            case TypeVariable<?> v -> {
                for (Type b : v.getBounds()) {
                    classes.addAll(classesIn(b, seen));
                }
            }
            default -> throw new AssertionError("unexpected kind of type " + t);
        }
        return classes;
    }

    @Test
    void anApplicationModuleCannotCompileAgainstTheGuardOrTheBridge(@TempDir Path dir) throws IOException {
        String allowed = """
                QueuePair qp = null;
                qp.close();
                boolean closed = qp.isClosed();
                """;
        assertEquals("", compile(dir.resolve("allowed"), allowed), "the check itself must compile what is API");

        String enter = compile(dir.resolve("enter"), "QueuePair qp = null;\nqp.enter();\n");
        assertTrue(enter.contains("compiler.err.cant.resolve.location.args: kindname.method, enter"), enter);

        String guard = compile(dir.resolve("guard"), "QueuePair qp = null;\nObject g = qp.guard;\n");
        assertTrue(guard.contains("compiler.err.not.def.public.cant.access: guard, io.jrdma.ibverbs.QueuePair"),
                guard);

        String bridge = compile(dir.resolve("bridge"), "io.jrdma.ibverbs.internal.VerbsBridge.install(null);\n");
        assertTrue(bridge.contains("compiler.err.package.not.visible: io.jrdma.ibverbs.internal"), bridge);
    }

    /**
     * Compiles an application module that requires io.jrdma.rdmacm, with {@code body} in a method, against the
     * modules this test runs with; returns javac's diagnostics when it fails, or "" when it compiles.
     */
    private static String compile(Path dir, String body) throws IOException {
        Path source = dir.resolve("src");
        Files.createDirectories(source.resolve("app"));
        Files.writeString(source.resolve("module-info.java"), "module app { requires io.jrdma.rdmacm; }\n");
        Files.writeString(source.resolve("app/App.java"), """
                package app;

                import io.jrdma.ibverbs.QueuePair;

                class App {
                    void run() throws Exception {
                %s    }
                }
                """.formatted(body.indent(8)));
        String modulePath = Stream.of("io.jrdma.bindings", IBVERBS, RDMACM)
                .map(name -> ModuleLayer.boot().configuration().findModule(name).orElseThrow().reference()
                        .location().orElseThrow())
                .map(uri -> Path.of(uri).toString())
                .collect(Collectors.joining(File.pathSeparator));
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow();
        StringWriter out = new StringWriter();
        int rc = javac.run(new PrintWriter(out), new PrintWriter(out), "-XDrawDiagnostics", "-proc:none",
                "--module-path", modulePath, "-d", dir.resolve("out").toString(),
                source.resolve("module-info.java").toString(), source.resolve("app/App.java").toString());
        assertNotEquals(rc == 0, out.toString().contains("compiler.err"), out.toString());
        return rc == 0 ? "" : out.toString();
    }
}
