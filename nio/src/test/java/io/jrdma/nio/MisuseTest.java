package io.jrdma.nio;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MisuseScenarios} over TCP on the loopback, in a child JVM: freed and foreign buffers are refused before any
 * byte moves, and closes racing the calls that use a descriptor never make those calls fail otherwise. Needs
 * librdmacm installed, no RDMA device.
 */
class MisuseTest {

    @Test
    void misuseIsAJavaExceptionAndMovesNoByte() throws Exception {
        check(ChildJvm.run(MisuseScenarios.class, 300, List.of(), "tcp"), MisuseScenarios.expected(false));
    }

    /** Checks that {@code child} ended normally, crashed nowhere and ended each scenario as {@code expected}. */
    static void check(ChildJvm child, Map<String, String> expected) {
        String out = child.output();
        assertTrue(child.endedNormally(), "status " + child.status() + ", fatal-error logs " + child.hsErrs() + ":\n" + out);
        assertTrue(out.contains("ALL DONE"), out);
        expected.forEach((scenario, outcome) ->
                assertTrue(out.contains("RESULT " + scenario + " " + outcome + "\n"), scenario + " " + outcome + " in:\n" + out));
    }
}
