package io.jrdma.nativetest;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

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
 * and write no fatal-error log.
 */
@RdmaDeviceTest
class CrashFreeDeviceTest {
    private static final Pattern RESULT = Pattern.compile("^RESULT (\\S+) (\\S+)", Pattern.MULTILINE);

    @Test
    void misuseIsAJavaExceptionNeverACrash(Device device) throws Exception {
        ChildJvm child = ChildJvm.run(AbuseScenarios.class, 600, device.name());
        String out = child.run().output();
        assertTrue(child.hsErrs().isEmpty(), "the child JVM crashed: " + child.hsErrs() + "\n" + out);
        assertFalse(out.contains("SIGSEGV") || out.contains("A fatal error"), out);
        assertEquals(0, child.run().status(), out);
        assertTrue(out.contains("ALL DONE"), out);
        Matcher m = RESULT.matcher(out);
        int seen = 0;
        while (m.find()) {
            String expected = AbuseScenarios.EXPECTED.get(m.group(1));
            assertEquals(expected, m.group(2), m.group(1) + " in:\n" + out);
            seen++;
        }
        assertEquals(AbuseScenarios.EXPECTED.size(), seen, out);
        for (Map.Entry<String, String> e : AbuseScenarios.EXPECTED.entrySet()) {
            assertTrue(out.contains("RESULT " + e.getKey() + " "), e.getKey() + " ran");
        }
    }
}
