package io.jrdma.nativetest.safety;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.CLibraryBuild;
import io.jrdma.nativetest.safety.ResourceCycles.Kind;
import io.jrdma.nativetest.support.ChildJvm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * "Never leak": 10,000 create/destroy cycles of every kind of object, after a warm-up, in a child JVM
 * ({@link ResourceCycles}, one for all kinds), leave behind:
 * <ul>
 *   <li>no more than {@value #NATIVE_BLOCKS} blocks malloc'ed by the RDMA stack (libibverbs, librdmacm, the
 *       provider, libnl) and not freed, counted by a preloaded allocation counter that looks at each block's
 *       caller. The whole process's malloc would not do: the JIT and the GC move megabytes in bursts;</li>
 *   <li>no more than {@value #OFF_HEAP_BYTES} bytes more of Java's off-heap memory (arenas, direct buffers:
 *       Native Memory Tracking's "Other");</li>
 *   <li>open file descriptors within {@value #FD_TOLERANCE} (the JVM opens a jar or a /proc file of its own now
 *       and then), and exactly the kernel's RDMA resource counts.</li>
 * </ul>
 * A leak of one block or 64 bytes a cycle is 10,000 blocks or 640,000 bytes, far above the bounds; two kinds leak
 * on purpose to show that each count sees it.
 */
@RdmaDeviceTest
class ResourceCyclesDeviceTest {
    private static final int CYCLES = 10_000;
    private static final int NATIVE_BLOCKS = 16;
    private static final long OFF_HEAP_BYTES = 64 * 1024;
    private static final int FD_TOLERANCE = 2;
    private static final Pattern RESULT = Pattern.compile(
            "^CYCLES (\\S+) (-?\\d+) (-?\\d+) (-?\\d+) (\\d+) (\\d+) (\\S+)\\|(\\S+)$", Pattern.MULTILINE);

    private static Path counter;
    private static Map<Kind, Leftovers> results;
    private static String output;

    @BeforeAll
    static void buildCounter() {
        counter = CLibraryBuild.build(ResourceCyclesDeviceTest.class, "alloc-counter.c", "liballoccounter.so");
    }

    @AfterAll
    static void deleteCounter() throws Exception {
        CLibraryBuild.delete(counter);
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, mode = EnumSource.Mode.MATCH_NONE, names = "LEAKED_.*")
    void tenThousandCyclesLeaveNothingBehind(Kind kind, Device device) throws Exception {
        Leftovers left = cycle(kind, device);
        assertEquals(List.of(), left.problems(), left.line());
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, mode = EnumSource.Mode.MATCH_ALL, names = "LEAKED_.*")
    void aLeakOnPurposeIsSeen(Kind kind, Device device) throws Exception {
        Leftovers left = cycle(kind, device);
        String expected = kind == Kind.LEAKED_DEVICE_LIST ? "the RDMA stack's malloc" : "off-heap memory";
        assertTrue(left.problems().stream().anyMatch(p -> p.startsWith(expected)),
                "expected a leak of " + expected + ", found " + left.problems() + " in: " + left.line());
    }

    /** The child's results by kind: one JVM runs every kind, as its start-up is most of a kind's time. */
    private static synchronized Leftovers cycle(Kind kind, Device device) throws Exception {
        if (results == null) {
            // Once, even if it fails: the other kinds then fail at once on the same output.
            results = Map.of();
            results = runChild(device);
        }
        Leftovers left = results.get(kind);
        assertNotNull(left, kind + " has no result in:\n" + output);
        return left;
    }

    private static Map<Kind, Leftovers> runChild(Device device) throws Exception {
        List<String> args = new ArrayList<>(List.of(device.name(), Integer.toString(CYCLES)));
        // The leaks on purpose last, so that what they leave cannot reach another kind's counts.
        Arrays.stream(Kind.values()).sorted(Comparator.comparing(k -> k.name().startsWith("LEAKED_")))
                .forEach(k -> args.add(k.name()));
        ChildJvm child = ChildJvm.run(ResourceCycles.class, 3600, Map.of("LD_PRELOAD", counter.toString()),
                List.of("-XX:NativeMemoryTracking=summary", "-Djrdma.alloc.counter=" + counter),
                args.toArray(String[]::new));
        output = child.run().output();
        System.out.print(output);
        assertTrue(child.hsErrs().isEmpty(), "the child JVM crashed: " + child.hsErrs() + "\n" + output);
        assertEquals(0, child.run().status(), output);
        Map<Kind, Leftovers> byKind = new EnumMap<>(Kind.class);
        Matcher m = RESULT.matcher(output);
        while (m.find()) {
            byKind.put(Kind.valueOf(m.group(1)), leftovers(m));
        }
        return byKind;
    }

    private static Leftovers leftovers(Matcher m) {
        long blocks = Long.parseLong(m.group(2));
        long bytes = Long.parseLong(m.group(3));
        long offHeap = Long.parseLong(m.group(4));
        long fdsBefore = Long.parseLong(m.group(5));
        long fdsAfter = Long.parseLong(m.group(6));
        List<String> problems = new ArrayList<>();
        if (blocks < 0 || blocks > NATIVE_BLOCKS) {
            problems.add("the RDMA stack's malloc: " + blocks + " blocks (" + bytes + " bytes) not freed");
        }
        if (offHeap > OFF_HEAP_BYTES) {
            problems.add("off-heap memory: +" + offHeap + " bytes");
        }
        if (Math.abs(fdsAfter - fdsBefore) > FD_TOLERANCE) {
            problems.add("open fds: " + fdsBefore + " -> " + fdsAfter);
        }
        if (!m.group(7).equals(m.group(8))) {
            problems.add("the kernel's RDMA resources: " + m.group(7) + " -> " + m.group(8));
        }
        return new Leftovers(problems, m.group());
    }

    /** What a kind left behind, and the child's line that says so. */
    private record Leftovers(List<String> problems, String line) {
    }
}
