package io.jrdma.nativetest.safety;

import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.MemoryWindow;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;

import javax.management.ObjectName;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The leak tests' child JVM: for each kind of object, after a warm-up, runs create/destroy cycles and prints what
 * they left behind, as one line {@code CYCLES kind blocks bytes offHeap fdsBefore fdsAfter kernelBefore|kernelAfter}:
 * <ul>
 *   <li>blocks and bytes the RDMA stack (libibverbs, librdmacm, the provider, libnl) malloc'ed and did not free,
 *       counted by {@code alloc-counter.c}, preloaded (its path is the property {@code jrdma.alloc.counter});</li>
 *   <li>the growth of the JVM's off-heap memory that Java code allocates (FFM arenas, direct buffers: Native Memory
 *       Tracking's "Other", so the JVM runs with {@code -XX:NativeMemoryTracking=summary});</li>
 *   <li>open file descriptors and the kernel's RDMA resource counts ({@code rdma -j resource show}).</li>
 * </ul>
 * Then, if blocks are outstanding, their callers. Arguments: device, cycles, then the kinds, run one after the
 * other (each count starts afresh).
 */
@SuppressWarnings("restricted") // it binds the preloaded allocation counter
final class ResourceCycles {
    static final int WARM_UP = 500;

    private static Context ctx;
    private static ProtectionDomain pd;
    private static CompletionQueue cq;
    private static Endpoint self;
    private static int gidIndex;

    @FunctionalInterface
    interface Cycle {
        void run() throws Exception;
    }

    /** The objects cycled, and two leaks made on purpose to show that the counts see them. */
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
        CM_EVENT_CHANNEL(() -> EventChannel.create().close()),
        /** libibverbs' device list, never given back with ibv_free_device_list: a leak in the stack's malloc. */
        LEAKED_DEVICE_LIST(() -> ibverbs_h.ibv_get_device_list(MemorySegment.NULL)),
        /** 64 bytes of a never-closed arena a cycle: a leak of Java's off-heap memory. */
        LEAKED_OFF_HEAP(() -> Arena.global().allocate(64));

        final Cycle cycle;

        Kind(Cycle cycle) {
            this.cycle = cycle;
        }
    }

    public static void main(String[] args) throws Throwable {
        int cycles = Integer.parseInt(args[1]);
        AllocationCounter counter = new AllocationCounter(Path.of(System.getProperty("jrdma.alloc.counter")));
        ctx = Context.open(args[0]);
        pd = ctx.allocateProtectionDomain();
        cq = ctx.createCompletionQueue(16);
        gidIndex = DeviceSupport.gidIndex(ctx);
        self = new Endpoint(ctx.queryPort(1).lid(), 1, 0, ctx.queryGid(1, gidIndex).gid());
        for (int k = 2; k < args.length; k++) {
            run(Kind.valueOf(args[k]), cycles, counter);
        }
        cq.close();
        pd.close();
        ctx.close();
    }

    private static void run(Kind kind, int cycles, AllocationCounter counter) throws Throwable {
        for (int i = 0; i < WARM_UP; i++) {
            kind.cycle.run();
        }
        settle();
        long fdsBefore = openFds();
        String kernelBefore = kernelCounts();
        long offHeapBefore = offHeapBytes();
        int ranges = counter.start();
        for (int i = 0; i < cycles; i++) {
            kind.cycle.run();
        }
        settle();
        long[] outstanding = counter.outstanding();
        long offHeap = offHeapBytes() - offHeapBefore;
        System.out.printf("%s: watched %d code ranges of the RDMA stack%n", kind, ranges);
        System.out.printf("CYCLES %s %d %d %d %d %d %s|%s%n", kind, outstanding[0], outstanding[1], offHeap,
                fdsBefore, openFds(), kernelBefore, kernelCounts());
        if (outstanding[0] != 0) {
            System.out.print(counter.report());
        }
    }

    /** Lets the cleaners of unreachable arenas run, so that what is left is what the cycles kept. */
    private static void settle() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
    }

    private static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    private static final Pattern OTHER = Pattern.compile("Other \\(reserved=(\\d+)B?, committed=(\\d+)");

    /** Native Memory Tracking's committed bytes for "Other": what Java code allocated off the heap. */
    private static long offHeapBytes() throws Exception {
        String summary = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                new Object[] {new String[] {"summary", "scale=B"}}, new String[] {String[].class.getName()});
        Matcher m = OTHER.matcher(summary);
        if (!m.find()) {
            throw new IllegalStateException("no \"Other\" in the native memory summary:\n" + summary);
        }
        return Long.parseLong(m.group(2));
    }

    private static final Pattern COUNTS = Pattern.compile("\"(pd|cq|qp|cm_id|mr|ctx|srq)\":(\\d+)");

    /** The device's counts from {@code rdma -j resource show}, e.g. {@code pd=3,cq=1,...}. */
    private static String kernelCounts() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("rdma", "-j", "resource", "show").redirectErrorStream(true).start();
        String json = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("rdma -j resource show failed: " + json);
        }
        StringBuilder b = new StringBuilder();
        Matcher m = COUNTS.matcher(json);
        while (m.find()) {
            b.append(b.isEmpty() ? "" : ",").append(m.group(1)).append('=').append(m.group(2));
        }
        if (b.isEmpty()) {
            throw new IOException("rdma resource show counted nothing: " + json);
        }
        return b.toString();
    }

    /** The preloaded {@code alloc-counter.c}'s functions. */
    private static final class AllocationCounter {
        private final MethodHandle start;
        private final MethodHandle outstanding;
        private final MethodHandle report;

        AllocationCounter(Path library) {
            SymbolLookup lookup = SymbolLookup.libraryLookup(library, Arena.global());
            Linker linker = Linker.nativeLinker();
            start = linker.downcallHandle(lookup.findOrThrow("ac_start"), FunctionDescriptor.of(JAVA_INT));
            outstanding = linker.downcallHandle(lookup.findOrThrow("ac_outstanding"),
                    FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
            report = linker.downcallHandle(lookup.findOrThrow("ac_report"),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        }

        int start() throws Throwable {
            return (int) start.invokeExact();
        }

        long[] outstanding() throws Throwable {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment blocks = arena.allocate(JAVA_LONG);
                MemorySegment bytes = arena.allocate(JAVA_LONG);
                outstanding.invokeExact(blocks, bytes);
                return new long[] {blocks.get(JAVA_LONG, 0), bytes.get(JAVA_LONG, 0)};
            }
        }

        String report() throws Throwable {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment text = arena.allocate(4096);
                int length = (int) report.invokeExact(text, 4096);
                return new String(text.asSlice(0, length).toArray(JAVA_BYTE),
                        StandardCharsets.UTF_8);
            }
        }
    }
}
