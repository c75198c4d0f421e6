package io.jrdma.nativetest;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A context dropped without close is reported, with what it still had open and where each was created, and released
 * with the memory its owned regions held.
 */
@RdmaDeviceTest
class LeakReportDeviceTest {

    @Test
    void anUnclosedContextIsReportedWithItsOpenObjectsAndReleased(Device device) throws Exception {
        List<String> reports = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                StringBuilder b = new StringBuilder(r.getMessage());
                if (r.getThrown() != null) {
                    for (StackTraceElement e : r.getThrown().getStackTrace()) {
                        b.append('\n').append(e);
                    }
                }
                reports.add(b.toString());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(Context.class.getName());
        logger.addHandler(capture);
        try {
            MemorySegment leakedMemory = leak(device);
            for (int i = 0; i < 100 && (reports.isEmpty() || leakedMemory.scope().isAlive()); i++) {
                System.gc();
                Thread.sleep(50);
            }
            assertTrue(!reports.isEmpty(), "no leak report after GC");
            String report = reports.getFirst();
            assertTrue(report.startsWith("Context[" + device.name() + "] was never closed"), report);
            assertTrue(report.contains("ProtectionDomain[") && report.contains("MemoryRegion["), report);
            assertTrue(report.contains("LeakReportDeviceTest.leak"), "creation sites name the leaking code: " + report);
            assertFalse(leakedMemory.scope().isAlive(), "the leaked region's own memory is freed after the device");
        } finally {
            logger.removeHandler(capture);
        }
        // The device is usable afterwards: the leaked context was released, not left dangling.
        try (Context ctx = Context.open(device.name()); ProtectionDomain pd = ctx.allocateProtectionDomain();
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE)) {
            assertTrue(mr.localKey() != 0);
        }
    }

    /** Leaks a context, a PD and an owned region; returns the region's memory (not the region) to watch it. */
    private static MemorySegment leak(Device device) throws Exception {
        Context ctx = Context.open(device.name());
        ProtectionDomain pd = ctx.allocateProtectionDomain();
        return pd.allocate(4096, Access.LOCAL_WRITE).segment();
    }
}
