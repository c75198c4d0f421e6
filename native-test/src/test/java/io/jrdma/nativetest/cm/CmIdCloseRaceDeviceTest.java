package io.jrdma.nativetest.cm;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.ChildJvm;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Closing a connection-manager id never frees it under a call: the calls of another thread that race the close
 * (reads of its route and addresses, options, queue pair attributes) end with {@link IllegalStateException}, and a
 * wait for the id's events ends the same way, in a child JVM whose freed memory glibc overwrites (so that a read of
 * the freed id follows garbage pointers and crashes), which must end normally and write no fatal-error log.
 */
@RdmaDeviceTest
class CmIdCloseRaceDeviceTest {
    private static final int ROUNDS = 100;
    /** Freed memory overwritten with 0xa5, and no per-thread cache, whose frees glibc does not overwrite. */
    private static final Map<String, String> FREED_MEMORY_POISONED = Map.of("MALLOC_PERTURB_", "165",
            "GLIBC_TUNABLES", "glibc.malloc.tcache_count=0");

    @Test
    void callsAndWaitsRacingCloseEndInIllegalStateExceptionNeverACrash(Device device) throws Exception {
        ChildJvm child = ChildJvm.run(CmIdCloseRace.class, 600, FREED_MEMORY_POISONED,
                List.of("-XX:-CreateCoredumpOnCrash"), device.name(), String.valueOf(ROUNDS));
        String out = child.run().output();
        assertTrue(child.hsErrs().isEmpty(), "the child JVM crashed: " + child.hsErrs() + "\n" + out);
        assertEquals(0, child.run().status(), out);
        assertTrue(out.contains("RESULT calls-racing-close IllegalStateException\n"), out);
        assertTrue(out.contains("RESULT await-on-closed-id IllegalStateException\n"), out);
        assertTrue(out.contains("ALL DONE"), out);
    }
}
