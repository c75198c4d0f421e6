package io.jrdma.nativetest;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.MemoryWindow;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * "Never leak": 10,000 create/destroy cycles of every kind of object leave the process's native heap, its open file
 * descriptors and the kernel's RDMA resource counts where they were after a warm-up.
 *
 * <p>Asserted: the kernel's counts ({@code rdma -j resource show}) are exactly equal, and open descriptors differ by
 * at most 2 (the JVM opens a jar or a /proc file of its own now and then). Printed, not asserted: malloc's bytes in
 * use ({@code mallinfo2}, the whole process) sampled every 1,000 cycles, and resident memory. In this process the
 * JIT and the GC malloc and free megabytes of their own in bursts (measured on rxe0: -11 MB to +11 MB in 1,000
 * cycles, in more than half of the intervals for some kinds), far above a leaked verbs struct (tens to hundreds of
 * bytes a cycle), so a bound on it would fail on noise or prove nothing.
 */
@RdmaDeviceTest
class ResourceCyclesDeviceTest {
    private static final int CYCLES = 10_000;
    private static final int WARM_UP = 500;
    private static final int INTERVALS = 10;
    private static final int FD_TOLERANCE = 2;

    private static Context ctx;
    private static ProtectionDomain pd;
    private static CompletionQueue cq;
    private static Endpoint self;
    private static int gidIndex;

    @FunctionalInterface
    interface Cycle {
        void run() throws Exception;
    }

    enum Kind {
        CONTEXT(() -> Context.open(ctx.device().name()).close()),
        PROTECTION_DOMAIN(() -> ctx.allocateProtectionDomain().close()),
        MEMORY_REGION(() -> pd.allocate(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE).close()),
        MEMORY_WINDOW(() -> pd.allocateMemoryWindow(MemoryWindow.Type.TYPE_2).close()),
        COMPLETION_QUEUE(() -> ctx.createCompletionQueue(16).close()),
        COMPLETION_CHANNEL(() -> ctx.createCompletionChannel().close()),
        QUEUE_PAIR(() -> pd.queuePair(QpType.RC).completionQueue(cq).capacity(16, 16).create().close()),
        SHARED_RECEIVE_QUEUE(() -> pd.createSharedReceiveQueue(16, 1).close()),
        ADDRESS_HANDLE(() -> pd.createAddressHandle(self, 1, gidIndex).close()),
        CM_ID(() -> {
            try (EventChannel channel = EventChannel.create()) {
                CmId.create(channel, PortSpace.TCP).close();
            }
        }),
        CM_EVENT_CHANNEL(() -> EventChannel.create().close());

        final Cycle cycle;

        Kind(Cycle cycle) {
            this.cycle = cycle;
        }
    }

    @BeforeAll
    static void open() throws Exception {
        String name = System.getProperty("jrdma.device", System.getenv().getOrDefault("JRDMA_DEVICE", "rxe0"));
        ctx = Context.open(name);
        pd = ctx.allocateProtectionDomain();
        cq = ctx.createCompletionQueue(16);
        gidIndex = DeviceSupport.gidIndex(ctx);
        self = new Endpoint(ctx.queryPort(1).lid(), 1, 0, ctx.queryGid(1, gidIndex).gid());
    }

    @AfterAll
    static void close() throws Exception {
        cq.close();
        pd.close();
        ctx.close();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void tenThousandCyclesLeaveNothingBehind(Kind kind) throws Exception {
        for (int i = 0; i < WARM_UP; i++) {
            kind.cycle.run();
        }
        Sample before = Sample.take();
        long[] growth = new long[INTERVALS];
        Sample last = before;
        for (int k = 0; k < INTERVALS; k++) {
            for (int i = 0; i < CYCLES / INTERVALS; i++) {
                kind.cycle.run();
            }
            Sample now = Sample.take();
            growth[k] = now.mallocInUse - last.mallocInUse;
            last = now;
        }
        Sample after = last;
        long[] sorted = growth.clone();
        Arrays.sort(sorted);
        long typical = sorted[INTERVALS / 2];
        System.out.printf("leak check %s x%d: malloc in use %+d B, per %d cycles %s (median %+d B, %.2f B/cycle),"
                        + " RSS %+d KiB, fds %d -> %d, kernel %s -> %s%n", kind, CYCLES,
                after.mallocInUse - before.mallocInUse, CYCLES / INTERVALS, Arrays.toString(growth), typical,
                (double) typical * INTERVALS / CYCLES, after.rssKib - before.rssKib, before.fds, after.fds,
                before.kernel, after.kernel);
        assertEquals(before.kernel, after.kernel, "the kernel's RDMA resource counts");
        assertTrue(Math.abs(after.fds - before.fds) <= FD_TOLERANCE, "open fds " + before.fds + " -> " + after.fds);
    }

    /** What the process holds: malloc's bytes in use, resident KiB, open fds, and the kernel's RDMA objects. */
    private record Sample(long mallocInUse, long rssKib, long fds, String kernel) {
        private static final Linker LINKER = Linker.nativeLinker();
        /** {@code struct mallinfo2}: ten size_t; uordblks (index 7) are the bytes in use, hblkhd (4) the mmapped. */
        private static final MemoryLayout MALLINFO2 = MemoryLayout.sequenceLayout(10, ValueLayout.JAVA_LONG);
        private static final MethodHandle MALLINFO = LINKER.downcallHandle(
                LINKER.defaultLookup().findOrThrow("mallinfo2"),
                FunctionDescriptor.of(MemoryLayout.structLayout(MALLINFO2)));
        private static final Pattern COUNTS = Pattern.compile("\"(pd|cq|qp|cm_id|mr|ctx|srq)\":(\\d+)");

        static Sample take() throws Exception {
            // Let the cleaners of unreachable arenas run, so that what is left is what the cycles kept.
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(100);
            }
            long inUse;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment info = (MemorySegment) MALLINFO.invokeExact((SegmentAllocator) arena);
                inUse = info.getAtIndex(ValueLayout.JAVA_LONG, 7) + info.getAtIndex(ValueLayout.JAVA_LONG, 4);
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
            long rss = Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(l -> l.startsWith("VmRSS:")).mapToLong(l -> Long.parseLong(l.replaceAll("\\D", "")))
                    .findFirst().orElse(-1);
            long fds;
            try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
                fds = s.count();
            }
            return new Sample(inUse, rss, fds, kernelCounts());
        }

        /** The device's counts from {@code rdma -j resource show}, e.g. {@code pd=3 cq=1 ...}. */
        private static String kernelCounts() throws IOException, InterruptedException {
            Process p = new ProcessBuilder("rdma", "-j", "resource", "show").redirectErrorStream(true).start();
            String json = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IOException("rdma -j resource show failed: " + json);
            }
            StringBuilder b = new StringBuilder();
            Matcher m = COUNTS.matcher(json);
            while (m.find()) {
                b.append(m.group(1)).append('=').append(m.group(2)).append(' ');
            }
            assertTrue(!b.isEmpty(), "rdma resource show counted nothing: " + json);
            return b.toString().trim();
        }
    }
}
