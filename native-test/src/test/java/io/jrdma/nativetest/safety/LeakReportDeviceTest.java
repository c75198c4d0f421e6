package io.jrdma.nativetest.safety;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.ChildJvm;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An object dropped without close is reported when it becomes unreachable, with where it was created, and released
 * natively, the objects made from it first: a context with everything under it, and a queue pair or region alone
 * while its context lives on (parents do not keep leaked children alive).
 */
@RdmaDeviceTest
class LeakReportDeviceTest {

    @Test
    void anUnclosedContextIsReportedWithItsOpenObjectsAndReleased(Device device) throws Exception {
        MemorySegment[] leakedMemory = new MemorySegment[1];
        List<String> reports = reportsOf(List.of(Context.class, ProtectionDomain.class, MemoryRegion.class), 3,
                () -> leakedMemory[0] = leakContext(device), () -> !leakedMemory[0].scope().isAlive());
        assertTrue(reports.stream().anyMatch(r -> r.startsWith("Context[" + device.name() + "] was never closed")),
                reports.toString());
        assertTrue(reports.stream().anyMatch(r -> r.startsWith("ProtectionDomain[")), reports.toString());
        assertTrue(reports.stream().anyMatch(r -> r.startsWith("MemoryRegion[")), reports.toString());
        assertTrue(reports.stream().allMatch(r -> r.contains("LeakReportDeviceTest.leakContext")),
                "creation sites name the leaking code: " + reports);
        assertFalse(leakedMemory[0].scope().isAlive(), "the leaked region's own memory is freed after the device");
        // The device is usable afterwards: the leaked context was released, not left dangling.
        try (Context ctx = Context.open(device.name()); ProtectionDomain pd = ctx.allocateProtectionDomain();
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE)) {
            assertTrue(mr.localKey() != 0);
        }
    }

    /**
     * A queue pair dropped while its context, protection domain and completion queue stay open: reported and
     * destroyed natively on its own, so that its parents close afterwards. (Before, parents held their children, so
     * such a leak was only found when the context leaked too, and the CQ refused to close "still used by" it.)
     */
    @Test
    void aQueuePairLeakedUnderALiveContextIsReportedAndDestroyed(Context ctx) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain()) {
            CompletionQueue cq = ctx.completionQueue(4).create();
            List<String> reports = reportsOf(List.of(QueuePair.class), 1, () -> leakQueuePair(pd, cq), () -> {
                try {
                    cq.close();   // refused while the leaked queue pair is open natively
                    return true;
                } catch (IllegalStateException | RdmaException stillUsed) {
                    return false;
                }
            });
            assertTrue(reports.getFirst().startsWith("QueuePair[RC, qpn 0x") && reports.getFirst()
                    .contains("was never closed"), reports.toString());
            assertTrue(reports.getFirst().contains("LeakReportDeviceTest.leakQueuePair"), reports.toString());
            assertTrue(cq.isClosed(), "the completion queue closed once the leaked queue pair was destroyed");
        }
    }

    /**
     * A region of a segment from an automatic arena, dropped: the arena's cleanup must not keep it (and its context)
     * reachable forever; it is reported and deregistered, and its protection domain closes afterwards.
     */
    @Test
    void aRegionOfAnAutomaticArenaLeakedIsReportedAndDeregistered(Context ctx) throws Exception {
        ProtectionDomain pd = ctx.allocateProtectionDomain();
        List<String> reports = reportsOf(List.of(MemoryRegion.class), 1, () -> leakRegion(pd), () -> {
            try {
                pd.close();
                return true;
            } catch (IllegalStateException | RdmaException stillUsed) {
                return false;
            }
        });
        assertTrue(reports.getFirst().startsWith("MemoryRegion[") && reports.getFirst().contains("never closed"),
                reports.toString());
        assertTrue(pd.isClosed(), "the protection domain closed once the leaked region was deregistered");
    }

    /**
     * {@code jrdma.leakDetection} in a child JVM that leaks 200 protection domains under an open context: {@code off}
     * reports none, {@code sampled} reports each but records few creation sites, {@code all} records every one; in
     * each case all are freed, so the context then closes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"off", "sampled", "all"})
    void theLeakDetectionLevelSetsWhatIsReported(String level, Device device) throws Exception {
        ChildJvm child = ChildJvm.run(LeakLevels.class, 300, java.util.Map.of(),
                List.of("-Djrdma.leakDetection=" + level), device.name(), "200");
        String out = child.run().output();
        assertTrue(child.hsErrs().isEmpty(), out);
        assertTrue(out.contains("CONTEXT CLOSED"), "every leaked protection domain was freed: " + out);
        int reported = count(out, "ProtectionDomain[");
        int sites = count(out, "LeakLevels.leak");
        switch (level) {
            case "off" -> assertTrue(reported == 0, out);
            case "sampled" -> assertTrue(reported == 200 && sites >= 1 && sites <= 4, reported + " reports, "
                    + sites + " sites:\n" + out);
            default -> assertTrue(reported == 200 && sites == 200, reported + " reports, " + sites + " sites");
        }
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    private static void leakQueuePair(ProtectionDomain pd, CompletionQueue cq) throws Exception {
        pd.queuePair(QpType.RC).completionQueue(cq).create();
    }

    private static void leakRegion(ProtectionDomain pd) throws Exception {
        Arena arena = Arena.ofAuto();
        pd.register(arena.allocate(8192, 4096), arena, Access.LOCAL_WRITE);
    }

    @Test
    void anUnclosedEventChannelIsReportedWithItsIdsAndReleased(Device device) throws Exception {
        InetAddress ip;
        try (Context ctx = Context.open(device.name())) {
            ip = DeviceSupport.ipAddress(ctx);
        }
        InetSocketAddress[] bound = new InetSocketAddress[1];
        // While the leaked id lives, its port is taken: the check below can tell.
        List<String> reports = reportsOf(List.of(EventChannel.class, CmId.class), 3, () -> bound[0] = leakChannel(ip),
                () -> canBind(bound[0]));
        assertTrue(reports.stream().anyMatch(r -> r.startsWith("EventChannel[fd ") && r.contains("] was never closed")),
                reports.toString());
        assertEquals(2, reports.stream().filter(r -> r.startsWith("CmId[TCP")).count(), reports.toString());
        assertTrue(reports.stream().allMatch(r -> r.contains("LeakReportDeviceTest.leakChannel")),
                "creation sites name the leaking code: " + reports);
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

    /**
     * Runs {@code leak}, then collects garbage until the loggers of {@code owners} have at least {@code expected}
     * warnings and {@code released} holds; returns the warnings, each with its creation site's frames.
     */
    private static List<String> reportsOf(List<Class<?>> owners, int expected, Leak leak, BooleanSupplier released)
            throws Exception {
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
        List<Logger> loggers = owners.stream().map(c -> Logger.getLogger(c.getName())).toList();
        loggers.forEach(l -> l.addHandler(capture));
        try {
            leak.run();
            for (int i = 0; i < 200 && (reports.size() < expected || !released.getAsBoolean()); i++) {
                System.gc();
                Thread.sleep(50);
            }
            assertTrue(reports.size() >= expected, "leak reports after GC: " + reports);
            assertTrue(released.getAsBoolean(), "not released: " + reports);
            return reports;
        } finally {
            loggers.forEach(l -> l.removeHandler(capture));
        }
    }
}
