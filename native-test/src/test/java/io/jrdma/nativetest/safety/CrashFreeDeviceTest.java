package io.jrdma.nativetest.safety;

import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.ThreadConfinement;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.ChildJvm;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * "Never crash the JVM": every misuse in {@link AbuseScenarios} (use after close, double close, closes racing polls,
 * posts, poll and post batches and event waits, freed memory, SGEs outside their region, malformed sizes, objects of
 * another protection domain) runs in a child JVM, which must end normally with the expected Java exception for each
 * and write no fatal-error log. Once with shared queue pairs and completion queues, once with confined ones, whose
 * other threads are refused.
 */
@RdmaDeviceTest
class CrashFreeDeviceTest {
    private static final Pattern RESULT = Pattern.compile("^RESULT (\\S+) (\\S+)", Pattern.MULTILINE);

    @ParameterizedTest
    @EnumSource(ThreadConfinement.class)
    void misuseIsAJavaExceptionNeverACrash(ThreadConfinement mode, Device device) throws Exception {
        Map<String, String> expectations = AbuseScenarios.expected(mode);
        ChildJvm child = ChildJvm.run(AbuseScenarios.class, 600, device.name(), mode.name());
        String out = child.run().output();
        assertTrue(child.hsErrs().isEmpty(), "the child JVM crashed: " + child.hsErrs() + "\n" + out);
        assertFalse(out.contains("SIGSEGV") || out.contains("A fatal error"), out);
        assertEquals(0, child.run().status(), out);
        assertTrue(out.contains("ALL DONE"), out);
        Matcher m = RESULT.matcher(out);
        int seen = 0;
        while (m.find()) {
            String expected = expectations.get(m.group(1));
            assertEquals(expected, m.group(2), m.group(1) + " in:\n" + out);
            seen++;
        }
        assertEquals(expectations.size(), seen, out);
        for (Map.Entry<String, String> e : expectations.entrySet()) {
            assertTrue(out.contains("RESULT " + e.getKey() + " "), e.getKey() + " ran");
        }
    }
}
