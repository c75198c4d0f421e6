package io.jrdma.nativetest;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A root object dropped without close (a context, a CM event channel) is reported, with what it still had open and
 * where each was created, and released with everything under it.
 */
@RdmaDeviceTest
class LeakReportDeviceTest {

    @Test
    void anUnclosedContextIsReportedWithItsOpenObjectsAndReleased(Device device) throws Exception {
        MemorySegment[] leakedMemory = new MemorySegment[1];
        String report = reportOf(Context.class, () -> leakedMemory[0] = leakContext(device),
                () -> !leakedMemory[0].scope().isAlive());
        assertTrue(report.startsWith("Context[" + device.name() + "] was never closed"), report);
        assertTrue(report.contains("ProtectionDomain[") && report.contains("MemoryRegion["), report);
        assertTrue(report.contains("LeakReportDeviceTest.leakContext"), "creation sites name the leaking code: "
                + report);
        assertFalse(leakedMemory[0].scope().isAlive(), "the leaked region's own memory is freed after the device");
        // The device is usable afterwards: the leaked context was released, not left dangling.
        try (Context ctx = Context.open(device.name()); ProtectionDomain pd = ctx.allocateProtectionDomain();
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE)) {
            assertTrue(mr.localKey() != 0);
        }
    }

    @Test
    void anUnclosedEventChannelIsReportedWithItsIdsAndReleased(Device device) throws Exception {
        InetAddress ip;
        try (Context ctx = Context.open(device.name())) {
            ip = DeviceSupport.ipAddress(ctx);
        }
        InetSocketAddress[] bound = new InetSocketAddress[1];
        // While the leaked id lives, its port is taken: the check below can tell.
        String report = reportOf(EventChannel.class, () -> bound[0] = leakChannel(ip), () -> canBind(bound[0]));
        assertTrue(report.startsWith("EventChannel[fd ") && report.contains("] was never closed"), report);
        assertTrue(report.contains("CmId[TCP"), report);
        assertTrue(report.contains("LeakReportDeviceTest.leakChannel"), "creation sites name the leaking code: "
                + report);
        assertTrue(canBind(bound[0]), "the leaked id was destroyed: its port is free again");
    }

    private static boolean canBind(InetSocketAddress address) {
        try (EventChannel channel = EventChannel.create(); CmId id = CmId.create(channel, PortSpace.TCP)) {
            id.bind(address);
            return true;
        } catch (RdmaException e) {
            return false;
        }
    }

    /** Leaks a context, a PD and an owned region; returns the region's memory (not the region) to watch it. */
    private static MemorySegment leakContext(Device device) throws Exception {
        Context ctx = Context.open(device.name());
        ProtectionDomain pd = ctx.allocateProtectionDomain();
        return pd.allocate(4096, Access.LOCAL_WRITE).segment();
    }

    /** Leaks a channel with two ids, one bound; returns the bound address. */
    private static InetSocketAddress leakChannel(InetAddress ip) throws Exception {
        EventChannel channel = EventChannel.create();
        CmId.create(channel, PortSpace.TCP);
        CmId id = CmId.create(channel, PortSpace.TCP);
        id.bind(new InetSocketAddress(ip, 0));
        return id.localAddress();
    }

    @FunctionalInterface
    private interface Leak {
        void run() throws Exception;
    }

    /** Runs {@code leak}, then collects garbage until {@code owner}'s logger has a warning and {@code released}. */
    private static String reportOf(Class<?> owner, Leak leak, BooleanSupplier released) throws Exception {
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
        Logger logger = Logger.getLogger(owner.getName());
        logger.addHandler(capture);
        try {
            leak.run();
            for (int i = 0; i < 100 && (reports.isEmpty() || !released.getAsBoolean()); i++) {
                System.gc();
                Thread.sleep(50);
            }
            assertTrue(!reports.isEmpty(), "no leak report after GC");
            return reports.getFirst();
        } finally {
            logger.removeHandler(capture);
        }
    }
}
