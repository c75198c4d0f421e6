package io.jrdma.junit;

import io.jrdma.ibverbs.Context;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/** What {@link RdmaDeviceTest} does when the device is not there: skip outside the device tier, fail inside. */
class RdmaDeviceExtensionTest {

    /** Runs only through the test kit below; the name keeps the build's own test scan away from it. */
    @RdmaDeviceTest(device = "nosuchdev0")
    static class NeedsAMissingDevice {
        @Test
        void useIt(Context ctx) {
            throw new AssertionError("must never run without its device, got " + ctx);
        }
    }

    @AfterEach
    void leaveTheTier() {
        System.clearProperty(RdmaDeviceExtension.TIER_PROPERTY);
    }

    @Test
    void skipsWithThePreciseReasonOutsideTheDeviceTier() {
        Events events = run();
        events.assertStatistics(s -> s.skipped(1).failed(0));
        String reason = events.skipped().stream().findFirst().flatMap(e -> e.getPayload(String.class)).orElseThrow();
        assertTrue(reason.startsWith("no RDMA device 'nosuchdev0'"), reason);
        assertTrue(reason.contains("device tier"), reason);
    }

    @Test
    void failsNeverSkipsInsideTheDeviceTier() {
        System.setProperty(RdmaDeviceExtension.TIER_PROPERTY, "true");
        Events events = run();
        events.assertStatistics(s -> s.skipped(0).failed(1));
        Event failed = events.failed().stream().findFirst().orElseThrow();
        Throwable cause = failed.getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).orElseThrow();
        assertTrue(cause.getMessage().contains("device tier: no RDMA device 'nosuchdev0'"), cause.getMessage());
    }

    @Test
    void marksTestsWithTheDeviceTag() {
        assertEquals("device", RdmaDeviceTest.class.getAnnotation(org.junit.jupiter.api.Tag.class).value());
    }

    private static Events run() {
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(NeedsAMissingDevice.class)).execute()
                .allEvents();
    }
}
