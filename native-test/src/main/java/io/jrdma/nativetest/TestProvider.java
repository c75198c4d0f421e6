package io.jrdma.nativetest;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionChannel;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ThreadConfinement;
import io.jrdma.ibverbs.internal.VerbsBridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The test provider: a device context, protection domain, memory region, completion channel, completion queue and
 * RC queue pair in plain memory whose data-path ops are trivial C functions ({@code test-provider.c}, built on
 * first use by {@link CLibraryBuild}), wrapped as jrdma objects. jrdma's data path (posting, polling, arming) runs
 * against it unchanged, so it measures what the Java side costs on any machine; the {@code bench*} methods
 * are the same calls made by a C loop, the baseline. Only the data path works: control verbs (modify, query, ...)
 * would reach libibverbs with objects it never made.
 *
 * <pre>{@code
 * try (TestProvider tp = TestProvider.open()) {
 *     tp.queuePair().postSend(new SendWorkRequest(1).add(tp.memoryRegion(), 0, 64));
 *     assert tp.sends() == 1;
 * }
 * }</pre>
 */
@SuppressWarnings("restricted") // it binds a test library of its own, as a provider would be bound
public final class TestProvider implements AutoCloseable {
    /** Requests in the C baseline's chain ({@code CHAIN} in the C source). */
    public static final int CHAIN = 16;

    private final MemorySegment tp;
    private final Context context;
    private final ProtectionDomain pd;
    private final MemoryRegion mr;
    private final CompletionChannel channel;
    private final CompletionQueue cq;
    private final QueuePair qp;

    private TestProvider(MemorySegment tp, ThreadConfinement confinement) throws RdmaException {
        this.tp = tp;
        VerbsBridge.Hooks hooks = VerbsBridge.hooks();
        this.context = hooks.adopt(pointer(Native.CONTEXT));
        this.pd = hooks.adoptProtectionDomain(context, pointer(Native.PD));
        MemorySegment memory = pointer(Native.MEMORY).reinterpret(Native.MEMORY_SIZE);
        this.mr = hooks.adoptMemoryRegion(pd, pointer(Native.MR), memory, Set.of(Access.LOCAL_WRITE));
        this.channel = hooks.adoptCompletionChannel(context, pointer(Native.CHANNEL));
        this.cq = hooks.adoptCompletionQueue(context, channel, pointer(Native.CQ), confinement);
        this.qp = hooks.createQueuePair(pd.queuePair(QpType.RC).completionQueue(cq).capacity(256, 256)
                        .confinement(confinement),
                new VerbsBridge.QpCreator() {
                    @Override
                    public MemorySegment create(MemorySegment pd, MemorySegment initAttr, boolean extended) {
                        try {
                            return (MemorySegment) Native.CREATE_QP.invokeExact(tp, pd, initAttr);
                        } catch (Throwable t) {
                            throw new AssertionError(t);
                        }
                    }

                    @Override
                    public void destroy(MemorySegment qp) {
                        // Freed with the provider.
                    }
                }, null);
    }

    /** A fresh provider with its own objects and counters; its queue pair and completion queue are shared. */
    public static TestProvider open() throws RdmaException {
        return open(ThreadConfinement.SHARED);
    }

    /**
     * A fresh provider whose queue pair and completion queue are {@code confinement}: confined ones belong to the
     * calling thread, which must then also {@link #close()} the provider.
     *
     * <pre>{@code
     * try (TestProvider tp = TestProvider.open(ThreadConfinement.CONFINED)) {
     *     tp.completionQueue().poll(new WorkCompletions(1));
     * }
     * }</pre>
     */
    public static TestProvider open(ThreadConfinement confinement) throws RdmaException {
        Objects.requireNonNull(confinement, "confinement");
        MemorySegment tp;
        try {
            tp = (MemorySegment) Native.CREATE.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        if (tp.equals(MemorySegment.NULL)) {
            throw new OutOfMemoryError("test provider");
        }
        return new TestProvider(tp, confinement);
    }

    public Context context() {
        return context;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** 4 KiB of memory with LOCAL_WRITE access. */
    public MemoryRegion memoryRegion() {
        return mr;
    }

    public CompletionChannel completionChannel() {
        return channel;
    }

    /** Every poll fills all the entries it is given: successful SEND completions, with wr_ids counting up from 0. */
    public CompletionQueue completionQueue() {
        return cq;
    }

    /** An RC queue pair (QP number 0x11) on {@link #completionQueue()}; every post succeeds. */
    public QueuePair queuePair() {
        return qp;
    }

    /** Send requests posted so far. */
    public long sends() {
        return counter(Native.SENDS);
    }

    /** Receive requests posted so far. */
    public long receives() {
        return counter(Native.RECVS);
    }

    /** Completions handed out by polls so far. */
    public long polled() {
        return counter(Native.POLLED);
    }

    /** Calls of {@code req_notify_cq} so far. */
    public long notifications() {
        return counter(Native.NOTIFIES);
    }

    /** The sum of the lengths of every scatter/gather entry posted so far. */
    public long bytes() {
        return counter(Native.BYTES);
    }

    /** The {@code wr_id} of the last request posted. */
    public long lastId() {
        return counter(Native.LAST_ID);
    }

    /** The C baseline: {@code n} posts of one signaled 64-byte SEND; 0 or the first failure's code. */
    public int benchPostSend(long n) {
        return bench(Native.BENCH_POST_SEND, n);
    }

    /** The C baseline: {@code n} posts of a chain of {@link #CHAIN} such SENDs. */
    public int benchPostSendChain(long n) {
        return bench(Native.BENCH_POST_SEND_CHAIN, n);
    }

    /** The C baseline: {@code n} posts of one 64-byte receive. */
    public int benchPostReceive(long n) {
        return bench(Native.BENCH_POST_RECV, n);
    }

    /** The C baseline: {@code n} arms of the completion queue. */
    public int benchRequestNotification(long n) {
        return bench(Native.BENCH_REQ_NOTIFY, n);
    }

    /** The C baseline: {@code n} polls of {@code batch} completions, each read (status, id); the sum of the ids. */
    public long benchPoll(int batch, long n) {
        if (batch < 1 || batch > CHAIN) {
            throw new IllegalArgumentException("batch must be in [1, " + CHAIN + "], not " + batch);
        }
        try {
            return (long) Native.BENCH_POLL.invokeExact(tp, batch, n);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Closes the Java objects, then frees the native ones. */
    @Override
    public void close() throws RdmaException {
        for (AutoCloseable c : List.of(qp, cq, channel, mr, pd, context)) {
            try {
                c.close();
            } catch (RdmaException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        try {
            Native.DESTROY.invokeExact(tp);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private MemorySegment pointer(MethodHandle getter) {
        try {
            return (MemorySegment) getter.invokeExact(tp);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private long counter(MethodHandle getter) {
        try {
            return (long) getter.invokeExact(tp);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private int bench(MethodHandle loop, long n) {
        try {
            return (int) loop.invokeExact(tp, n);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The compiled library and its functions, loaded once per JVM. */
    private static final class Native {
        private static final SymbolLookup LIB = compile();
        private static final Linker LINKER = Linker.nativeLinker();
        static final MethodHandle CREATE = fn("tp_create", FunctionDescriptor.of(ADDRESS));
        static final MethodHandle DESTROY = fn("tp_destroy", FunctionDescriptor.ofVoid(ADDRESS));
        static final MethodHandle CREATE_QP = fn("tp_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS,
                ADDRESS));
        static final MethodHandle CONTEXT = getter("tp_context");
        static final MethodHandle PD = getter("tp_pd");
        static final MethodHandle MR = getter("tp_mr");
        static final MethodHandle MEMORY = getter("tp_memory");
        static final long MEMORY_SIZE = memorySize();
        static final MethodHandle CHANNEL = getter("tp_channel");
        static final MethodHandle CQ = getter("tp_cq");
        static final MethodHandle SENDS = counter("tp_sends");
        static final MethodHandle RECVS = counter("tp_recvs");
        static final MethodHandle POLLED = counter("tp_polled");
        static final MethodHandle NOTIFIES = counter("tp_notifies");
        static final MethodHandle BYTES = counter("tp_bytes");
        static final MethodHandle LAST_ID = counter("tp_last_id");
        static final MethodHandle BENCH_POST_SEND = loop("tp_bench_post_send");
        static final MethodHandle BENCH_POST_SEND_CHAIN = loop("tp_bench_post_send_chain");
        static final MethodHandle BENCH_POST_RECV = loop("tp_bench_post_recv");
        static final MethodHandle BENCH_REQ_NOTIFY = loop("tp_bench_req_notify");
        static final MethodHandle BENCH_POLL = fn("tp_bench_poll",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT, JAVA_LONG));

        private static MethodHandle fn(String name, FunctionDescriptor descriptor, Linker.Option... options) {
            return LINKER.downcallHandle(LIB.findOrThrow(name), descriptor, options);
        }

        private static MethodHandle getter(String name) {
            return fn(name, FunctionDescriptor.of(ADDRESS, ADDRESS));
        }

        private static MethodHandle counter(String name) {
            return fn(name, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        }

        /** A C loop: one call for many operations, so the downcall's own cost is spread thin. */
        private static MethodHandle loop(String name) {
            return fn(name, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), Linker.Option.critical(false));
        }

        private static long memorySize() {
            try {
                return (long) fn("tp_memory_size", FunctionDescriptor.of(JAVA_LONG)).invokeExact();
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        }

        /** Builds the C source into a shared library and loads it. */
        private static SymbolLookup compile() {
            Path library = CLibraryBuild.build(TestProvider.class, "test-provider.c", "libtestprovider.so");
            SymbolLookup lookup = SymbolLookup.libraryLookup(library, Arena.global());
            try {
                // Loaded: the files are no longer needed.
                CLibraryBuild.delete(library);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return lookup;
        }
    }
}
