package io.jrdma.nativetest.safety;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.CompletionChannel;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.ExtendedPoll;
import io.jrdma.ibverbs.ExtendedPost;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.MemoryWindow;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.SharedReceiveQueue;
import io.jrdma.ibverbs.ThreadConfinement;
import io.jrdma.ibverbs.WcField;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.nativetest.support.DeviceSupport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A child process for {@link CrashFreeDeviceTest}: misuses the API on purpose, one scenario after another, and
 * prints {@code RESULT <scenario> <what it threw>} for each, then {@code ALL DONE}. A crash of this JVM ends it before
 * that line. Its second argument is the {@link ThreadConfinement} of the queue pairs and completion queues the
 * scenarios make (on the main thread, their owner when confined).
 */
public final class AbuseScenarios {
    @FunctionalInterface
    interface Scenario {
        void run(Context ctx) throws Exception;
    }

    /** Each scenario and the exceptions it must end with, shared and confined ("none": the call must succeed). */
    private static final Map<String, String[]> EXPECTED = new LinkedHashMap<>();
    private static final Map<String, Scenario> SCENARIOS = new LinkedHashMap<>();
    /** The confinement of the scenarios' queue pairs and completion queues: one per child JVM. */
    private static ThreadConfinement mode = ThreadConfinement.SHARED;

    private static void scenario(String name, String expected, Scenario s) {
        scenario(name, expected, expected, s);
    }

    private static void scenario(String name, String shared, String confined, Scenario s) {
        EXPECTED.put(name, new String[] {shared, confined});
        SCENARIOS.put(name, s);
    }

    /** Each scenario and the exception it must end with in {@code confinement}. */
    static Map<String, String> expected(ThreadConfinement confinement) {
        Map<String, String> m = new LinkedHashMap<>();
        EXPECTED.forEach((name, outcomes) -> m.put(name, outcomes[confinement.ordinal()]));
        return m;
    }

    private static CompletionQueue cq(Context ctx, int entries) throws Exception {
        return ctx.completionQueue(entries).confinement(mode).create();
    }

    private static QueuePair.Builder qp(ProtectionDomain pd, QpType type) {
        return pd.queuePair(type).confinement(mode);
    }

    private static final String ISE = "IllegalStateException";
    private static final String IAE = "IllegalArgumentException";
    /** What a confined object's other threads get. */
    private static final String WTE = "WrongThreadException";

    static {
        scenario("useAfterClose.pd", ISE, ctx -> {
            ProtectionDomain pd = ctx.allocateProtectionDomain();
            pd.close();
            pd.allocate(4096, Access.LOCAL_WRITE);
        });
        scenario("useAfterClose.cqPoll", ISE, ctx -> {
            CompletionQueue cq = cq(ctx, 4);
            cq.close();
            cq.poll(new WorkCompletions(1));
        });
        scenario("useAfterClose.mrKey", ISE, ctx -> {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain()) {
                MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE);
                mr.close();
                mr.localKey();
            }
        });
        scenario("useAfterClose.context", ISE, ctx -> {
            Context other = Context.open(ctx.device().name());
            other.close();
            other.allocateProtectionDomain();
        });
        scenario("doubleClose", "none", ctx -> {
            ProtectionDomain pd = ctx.allocateProtectionDomain();
            CompletionQueue cq = cq(ctx, 4);
            QueuePair qp = qp(pd, QpType.RC).completionQueue(cq).create();
            for (int i = 0; i < 2; i++) {
                qp.close();
                cq.close();
                pd.close();
            }
        });
        scenario("postOnClosedQp", ISE, ctx -> withUd(ctx, (pd, cq, qp, mr) -> {
            qp.close();
            qp.postReceive(new ReceiveWorkRequest(1).add(mr, 0, 64));
        }));
        scenario("closeParentWithChildren", ISE, ctx -> withUd(ctx, (pd, cq, qp, mr) -> pd.close()));
        scenario("sgeOutsideRegion", "IndexOutOfBoundsException", ctx -> withUd(ctx, (pd, cq, qp, mr) ->
                new SendWorkRequest(1).add(mr, 4000, 200)));
        scenario("sgeNegativeLength", IAE, ctx -> withUd(ctx, (pd, cq, qp, mr) ->
                new SendWorkRequest(1).add(mr, 0, -1)));
        scenario("tooManySges", ISE, ctx -> withUd(ctx, (pd, cq, qp, mr) ->
                new SendWorkRequest(1).add(mr, 0, 8).add(mr, 8, 8)));
        scenario("completionArrayEmpty", IAE, ctx -> new WorkCompletions(0));
        scenario("completionArrayTooSmall", "none", ctx -> withUd(ctx, (pd, cq, qp, mr) -> {
            // Four flushed receives, read through a one-entry array: one at a time, nothing written past it.
            ReceiveWorkRequest r = new ReceiveWorkRequest(1).add(mr, 0, 64);
            for (int i = 0; i < 4; i++) {
                qp.postReceive(r);
            }
            qp.toError();
            WorkCompletions one = new WorkCompletions(1);
            int total = 0;
            for (long end = System.nanoTime() + 10_000_000_000L; total < 4 && System.nanoTime() < end; ) {
                int n = cq.poll(one);
                if (n > 1) {
                    throw new AssertionError("polled " + n + " into a one-entry array");
                }
                total += n;
            }
            if (total != 4) {
                throw new AssertionError("flushed " + total + " of 4");
            }
        }));
        scenario("negativeCqSize", IAE, ctx -> ctx.createCompletionQueue(-1));
        scenario("badCompletionVector", IAE, ctx -> ctx.completionQueue(4).vector(1 << 20).create());
        scenario("negativeRegionSize", IAE, ctx -> {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain()) {
                pd.allocate(-4096, Access.LOCAL_WRITE);
            }
        });
        scenario("heapSegment", IAE, ctx -> {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain()) {
                pd.register(MemorySegment.ofArray(new byte[64]), Arena.global(), Access.LOCAL_WRITE);
            }
        });
        scenario("negativeInline", IAE, ctx -> {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain()) {
                pd.queuePair(QpType.RC).maxInlineData(-1);
            }
        });
        scenario("zeroQueueDepth", IAE, ctx -> {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain()) {
                pd.queuePair(QpType.RC).capacity(0, 0);
            }
        });
        scenario("nullDeviceName", IAE, ctx -> Context.open(null));
        scenario("nullCompletionArray", "NullPointerException", ctx -> {
            try (CompletionQueue cq = cq(ctx, 4)) {
                cq.poll(null);
            }
        });
        scenario("badPsn", IAE, ctx -> withUd(ctx, (pd, cq, qp, mr) -> qp.toReadyToSend(-1, null)));
        scenario("unalignedAtomic", IAE, ctx -> new SendWorkRequest(1).atomic(3, 1, 1, 1));
        scenario("chainCycle", IAE, ctx -> withUd(ctx, (pd, cq, qp, mr) -> {
            ReceiveWorkRequest r = new ReceiveWorkRequest(1).add(mr, 0, 64);
            qp.postReceive(r.next(r));
        }));
        scenario("requestArenaClosed", ISE, ctx -> withUd(ctx, (pd, cq, qp, mr) -> {
            Arena arena = Arena.ofShared();
            ReceiveWorkRequest second = new ReceiveWorkRequest(1, arena).add(mr, 0, 64);
            arena.close();
            qp.postReceive(new ReceiveWorkRequest(1).add(mr, 0, 64).next(second));
        }));
        scenario("sendRequestArenaClosed", ISE, ctx -> {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain();
                 CompletionQueue cq = cq(ctx, 16);
                 QueuePair qp = qp(pd, QpType.UC).completionQueue(cq).create();
                 MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE)) {
                Arena arena = Arena.ofShared();
                SendWorkRequest second = new SendWorkRequest(1, arena).opcode(SendOpcode.SEND).add(mr, 0, 64);
                arena.close();   // the chain's head is alive; the provider would follow its next into freed memory
                qp.postSend(new SendWorkRequest(1).opcode(SendOpcode.SEND).add(mr, 0, 64).next(second));
            }
        });
        scenario("regionOfAnotherPd", IAE, ctx -> withUd(ctx, (pd, cq, qp, mr) -> {
            try (ProtectionDomain other = ctx.allocateProtectionDomain();
                 MemoryRegion foreign = other.allocate(4096, Access.LOCAL_WRITE)) {
                qp.postReceive(new ReceiveWorkRequest(1).add(foreign, 0, 64));
            }
        }));
        scenario("regionArenaClosedBeforeInlinePost", ISE, ctx -> {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain();
                 CompletionQueue cq = cq(ctx, 16);
                 QueuePair qp = qp(pd, QpType.UC).completionQueue(cq).maxInlineData(64).create()) {
                Arena arena = Arena.ofShared();
                MemoryRegion mr = pd.register(arena.allocate(1 << 20, 4096), arena, Access.LOCAL_WRITE);
                SendWorkRequest wr = new SendWorkRequest(1).opcode(SendOpcode.SEND).inline(true).add(mr, 0, 64);
                arena.close();   // deregisters, then frees (and unmaps) the memory the request points into
                qp.postSend(wr);
            }
        });
        scenario("closedWindowInBind", ISE, ctx -> {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain();
                 CompletionQueue cq = cq(ctx, 16);
                 QueuePair qp = qp(pd, QpType.RC).completionQueue(cq).create();
                 MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE, Access.MW_BIND)) {
                MemoryWindow mw = pd.allocateMemoryWindow(MemoryWindow.Type.TYPE_2);
                SendWorkRequest wr = new SendWorkRequest(1).bindWindow(mw, mw.nextRemoteKey(), mr, 0, 64,
                        Access.REMOTE_READ);
                mw.close();
                qp.postSend(wr);
            }
        });
        // A BIND_MW request built by opcode() alone: the provider would follow its null window and region.
        scenario("bindMwWithoutWindow", IAE, ctx -> withRc(ctx, (pd, cq, qp, mr) ->
                qp.postSend(new SendWorkRequest(1).opcode(SendOpcode.BIND_MW).signaled(true))));
        // rdma(...) after datagram(...) overwrote the address handle pointer with a remote address the user chose.
        scenario("udSendWithRdmaOverItsDestination", IAE, ctx -> withUd(ctx, (pd, cq, qp, mr) -> {
            try (AddressHandle ah = pd.createAddressHandle(qp.endpoint(1, DeviceSupport.gidIndex(ctx), 0), 1,
                    DeviceSupport.gidIndex(ctx))) {
                qp.postSend(new SendWorkRequest(1).add(mr, 0, 64).datagram(ah, qp.qpNumber(), 0x1234)
                        .rdma(0xdead_0000L, 1));
            }
        }));
        // On a connected queue pair the address handle's heap address would go to the peer as the remote address.
        scenario("rdmaWriteWithADatagramDestination", IAE, ctx -> withRc(ctx, (pd, cq, qp, mr) -> {
            try (AddressHandle ah = pd.createAddressHandle(qp.endpoint(1, DeviceSupport.gidIndex(ctx), 0), 1,
                    DeviceSupport.gidIndex(ctx))) {
                qp.postSend(new SendWorkRequest(1).opcode(SendOpcode.RDMA_WRITE).add(mr, 0, 64)
                        .rdma(mr.address(), mr.remoteKey()).datagram(ah, 1, 1));
            }
        }));
        scenario("rdmaWriteWithAtomicOperands", IAE, ctx -> withRc(ctx, (pd, cq, qp, mr) ->
                qp.postSend(new SendWorkRequest(1).opcode(SendOpcode.RDMA_WRITE).add(mr, 0, 64)
                        .atomic(mr.address(), mr.remoteKey(), 1, 2))));
        // The providers' setters write into the request the last builder started: none here.
        scenario("extendedSgeWithoutARequest", ISE, ctx -> withExtendedPost(ctx, (qp, post, mr) -> post.sge(mr, 0, 64)));
        scenario("extendedSecondSge", ISE, ctx -> withExtendedPost(ctx, (qp, post, mr) ->
                post.id(1).send().sge(mr, 0, 64).sge(mr, 64, 64)));
        scenario("extendedInlineAfterLocalInvalidate", ISE, ctx -> withExtendedPost(ctx, (qp, post, mr) ->
                post.id(1).localInvalidate(1).inline(mr.segment().asSlice(0, 8))));
        scenario("extendedCompleteWithoutData", ISE, ctx -> withExtendedPost(ctx, (qp, post, mr) -> {
            post.id(1).send();
            post.complete();
        }));
        scenario("extendedBuilderBeforeTheLastHasData", ISE, ctx -> withExtendedPost(ctx, (qp, post, mr) ->
                post.id(1).send().send()));
        // The provider holds the send queue's lock for the batch: a classic post would spin on it forever.
        scenario("postSendInsideOwnBatch", ISE, ctx -> withExtendedPost(ctx, (qp, post, mr) ->
                qp.postSend(new SendWorkRequest(1).add(mr, 0, 64))));
        scenario("windowBindInsideOwnBatch", ISE, ctx -> withExtendedPost(ctx, (qp, post, mr) -> {
            try (MemoryWindow mw = mr.protectionDomain().allocateMemoryWindow(MemoryWindow.Type.TYPE_1)) {
                mw.bind(qp, mr, 0, 64, Access.REMOTE_READ);
            }
        }));
        scenario("pollInsideOwnExtendedPoll", ISE, ctx -> withFlushedExtendedCq(ctx, cq -> cq.poll(new WorkCompletions(1))));
        scenario("resizeInsideOwnExtendedPoll", ISE, ctx -> withFlushedExtendedCq(ctx, cq -> cq.resize(64)));
        scenario("registerMemoryOfAClosedArena", ISE, ctx -> {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain()) {
                Arena arena = Arena.ofShared();
                MemorySegment freed = arena.allocate(4096);
                arena.close();
                pd.register(freed, arena, Access.LOCAL_WRITE);
            }
        });
        scenario("registerAnotherThreadsConfinedMemory", WTE, ctx -> {
            CompletableFuture<Object[]> theirs = new CompletableFuture<>();   // their arena and a segment of it
            CountDownLatch done = new CountDownLatch(1);
            Thread.ofPlatform().daemon().start(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    theirs.complete(new Object[] {arena, arena.allocate(4096)});
                    done.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Object[] memory = theirs.get(30, TimeUnit.SECONDS);
            try (ProtectionDomain pd = ctx.allocateProtectionDomain()) {
                pd.register((MemorySegment) memory[1], (Arena) memory[0], Access.LOCAL_WRITE);
            } finally {
                done.countDown();
            }
        });
        scenario("namesOfClosedObjects", "none", ctx -> {
            ProtectionDomain pd = ctx.allocateProtectionDomain();
            CompletionQueue cq = cq(ctx, 4);
            SharedReceiveQueue srq = pd.createSharedReceiveQueue(4, 1);
            QueuePair qp = qp(pd, QpType.UD).completionQueue(cq).create();
            AddressHandle ah = pd.createAddressHandle(qp.endpoint(1, DeviceSupport.gidIndex(ctx), 0), 1,
                    DeviceSupport.gidIndex(ctx));
            qp.close();
            Object[] objects = {ah, srq, cq, pd};
            for (Object o : objects) {
                String open = o.toString();
                ((AutoCloseable) o).close();
                // Churn the heap the native struct was freed to, so that reading it would show.
                for (int i = 0; i < 4; i++) {
                    pd.toString();
                }
                if (!open.equals(o.toString())) {
                    throw new AssertionError(open + " became " + o + " once closed");
                }
            }
        });
        scenario("closeCqWhilePolling", ISE, WTE, ctx -> {
            CompletionQueue cq = cq(ctx, 4);
            WorkCompletions wcs = new WorkCompletions(4);
            CompletableFuture<Throwable> poller = hammer(() -> cq.poll(wcs));
            Thread.sleep(20);
            cq.close();
            rethrow(poller);
        });
        scenario("closeCqDuringExtendedPoll", ISE, WTE, AbuseScenarios::closeDuringExtendedPoll);
        scenario("closeQpDuringExtendedPost", ISE, WTE, AbuseScenarios::closeDuringExtendedPost);
        scenario("closeQpInsideItsOwnBatch", ISE, ctx -> {
            try (ProtectionDomain pd = ctx.allocateProtectionDomain();
                 CompletionQueue cq = cq(ctx, 16);
                 QueuePair qp = qp(pd, QpType.RC).completionQueue(cq).extendedSendOps(SendOpcode.SEND).create()) {
                ExtendedPost post = qp.extendedPost().start();
                try {
                    qp.close();   // would wait for its own batch forever
                } finally {
                    post.abort();
                }
            }
        });
        // Another thread's use: fine when shared; refused, changing nothing, when confined.
        scenario("closeQpFromAnotherThread", "none", WTE, ctx -> withUd(ctx, (pd, cq, qp, mr) -> {
            Throwable t = onAnotherThread(qp::close);
            if (!qp.isClosed()) {
                qp.postReceive(new ReceiveWorkRequest(1).add(mr, 0, 64));   // the owner's queue pair still works
            }
            rethrowIfAny(t);
        }));
        scenario("postFromAnotherThread", "none", WTE, ctx -> withUd(ctx, (pd, cq, qp, mr) ->
                rethrowIfAny(onAnotherThread(() -> qp.postReceive(new ReceiveWorkRequest(1).add(mr, 0, 64))))));
        scenario("pollFromAnotherThread", "none", WTE, ctx -> withUd(ctx, (pd, cq, qp, mr) ->
                rethrowIfAny(onAnotherThread(() -> cq.poll(new WorkCompletions(1))))));
        scenario("extendedPollFromAnotherThread", "none", WTE, ctx -> {
            try (CompletionQueue cq = ctx.completionQueue(4).extended().confinement(mode).create()) {
                rethrowIfAny(onAnotherThread(() -> cq.extendedPoll().start()));
            }
        });
        scenario("closeChannelWhileWaiting", ISE, ctx -> {
            CompletionChannel channel = ctx.createCompletionChannel();
            CompletableFuture<Throwable> waiter = hammer(() -> channel.await(null));
            Thread.sleep(200);
            channel.close();
            rethrow(waiter);
        });
        scenario("closeContextWhileWaitingForAsyncEvents", ISE, ctx -> {
            Context other = Context.open(ctx.device().name());
            CompletableFuture<Throwable> waiter = hammer(() -> other.awaitAsyncEvent(null));
            Thread.sleep(200);
            other.close();
            rethrow(waiter);
        });
    }

    @FunctionalInterface
    private interface UdBody {
        void run(ProtectionDomain pd, CompletionQueue cq, QueuePair qp, MemoryRegion mr) throws Exception;
    }

    /** A PD, CQ, UD queue pair in INIT (it takes receives) and a 4 KiB region, closed after {@code body}. */
    private static void withUd(Context ctx, UdBody body) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cq = cq(ctx, 16);
             QueuePair qp = qp(pd, QpType.UD).completionQueue(cq).capacity(8, 8).create();
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE)) {
            qp.toInitDatagram(1, 0x1234);
            body.run(pd, cq, qp, mr);
        }
    }

    /** A PD, CQ, RC queue pair (in RESET: the provider reads a request before the kernel refuses it) and a region. */
    private static void withRc(Context ctx, UdBody body) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cq = cq(ctx, 16);
             QueuePair qp = qp(pd, QpType.RC).completionQueue(cq).capacity(8, 8).create();
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
                     Access.REMOTE_ATOMIC, Access.MW_BIND)) {
            body.run(pd, cq, qp, mr);
        }
    }

    @FunctionalInterface
    private interface BatchBody {
        void run(QueuePair qp, ExtendedPost post, MemoryRegion mr) throws Exception;
    }

    /** Runs {@code body} inside an open batch of an extended RC queue pair, aborted after it. */
    private static void withExtendedPost(Context ctx, BatchBody body) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cq = cq(ctx, 16);
             QueuePair qp = qp(pd, QpType.RC).completionQueue(cq).maxInlineData(64)
                     .extendedSendOps(SendOpcode.SEND, SendOpcode.LOCAL_INV).create();
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE, Access.MW_BIND)) {
            ExtendedPost post = qp.extendedPost().start();
            try {
                body.run(qp, post, mr);
            } finally {
                post.abort();
            }
        }
    }

    @FunctionalInterface
    private interface CqBody {
        void run(CompletionQueue cq) throws Exception;
    }

    /** Runs {@code body} inside an extended poll of a CQ that holds flushed completions, ended after it. */
    private static void withFlushedExtendedCq(Context ctx, CqBody body) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE);
             CompletionQueue cq = ctx.completionQueue(16).extended(WcField.BYTE_LEN).confinement(mode).create()) {
            try (QueuePair qp = qp(pd, QpType.UD).completionQueue(cq).capacity(4, 4).create()) {
                qp.toInitDatagram(1, 0x1234);
                qp.postReceive(new ReceiveWorkRequest(1).add(mr, 0, 64));
                qp.toError();
            }
            ExtendedPoll poll = cq.extendedPoll();
            for (long end = System.nanoTime() + 10_000_000_000L; !poll.start(); ) {
                if (System.nanoTime() > end) {
                    throw new AssertionError("the flushed receive never completed");
                }
            }
            try {
                body.run(cq);
            } finally {
                poll.end();
            }
        }
    }

    /**
     * Closes an extended CQ while another thread loops through poll batches on it: the close waits for the batch in
     * flight, and the poller's next start() is refused.
     */
    private static void closeDuringExtendedPoll(Context ctx) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE)) {
            CompletionQueue cq = ctx.completionQueue(256).extended(WcField.BYTE_LEN).confinement(mode).create();
            try (QueuePair qp = qp(pd, QpType.UD).completionQueue(cq).capacity(4, 200).create()) {
                qp.toInitDatagram(1, 0x1234);
                ReceiveWorkRequest r = new ReceiveWorkRequest(1).add(mr, 0, 64);
                for (int i = 0; i < 200; i++) {
                    qp.postReceive(r.id(i));
                }
                qp.toError();   // 200 flushed completions to poll
            }
            ExtendedPoll poll = cq.extendedPoll();
            CountDownLatch inBatch = new CountDownLatch(1);
            CompletableFuture<Throwable> poller = hammer(() -> {
                if (poll.start()) {
                    inBatch.countDown();
                    Thread.sleep(1);
                    poll.id();
                    poll.status();
                    poll.end();
                }
            });
            awaitBatch(inBatch, poller);
            cq.close();
            rethrow(poller);
        }
    }

    /** Closes an extended queue pair while another thread loops through ibv_wr batches on it. */
    private static void closeDuringExtendedPost(Context ctx) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cq = cq(ctx, 16);
             MemoryRegion mr = pd.allocate(4096, Access.LOCAL_WRITE)) {
            QueuePair qp = qp(pd, QpType.RC).completionQueue(cq).extendedSendOps(SendOpcode.SEND).create();
            ExtendedPost post = qp.extendedPost();
            CountDownLatch inBatch = new CountDownLatch(1);
            CompletableFuture<Throwable> poster = hammer(() -> {
                post.start();
                inBatch.countDown();
                post.id(1).signaled(true).send().sge(mr, 0, 64);
                Thread.sleep(1);
                post.abort();
            });
            awaitBatch(inBatch, poster);
            qp.close();
            rethrow(poster);
        }
    }

    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }

    /** Runs {@code call} in a loop on a new daemon thread until it throws; completes with what it threw. */
    private static CompletableFuture<Throwable> hammer(Call call) {
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                while (true) {
                    call.run();
                }
            } catch (Throwable t) {
                ended.complete(t);
            }
        });
        return ended;
    }

    /** Waits until the batch thread is inside a batch, or has ended (a confined queue refuses it at once). */
    private static void awaitBatch(CountDownLatch inBatch, CompletableFuture<Throwable> thread) throws Exception {
        for (long end = System.nanoTime() + 10_000_000_000L; System.nanoTime() < end && !thread.isDone(); ) {
            if (inBatch.await(10, TimeUnit.MILLISECONDS)) {
                return;
            }
        }
    }

    /** Runs {@code call} once on a new thread; returns what it threw, or null. */
    private static Throwable onAnotherThread(Call call) throws Exception {
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            try {
                call.run();
                ended.complete(null);
            } catch (Throwable t) {
                ended.complete(t);
            }
        });
        return ended.get(30, TimeUnit.SECONDS);
    }

    private static void rethrowIfAny(Throwable t) throws Exception {
        if (t != null) {
            rethrow(CompletableFuture.completedFuture(t));
        }
    }

    private static void rethrow(CompletableFuture<Throwable> ended) throws Exception {
        Throwable t = ended.get(30, TimeUnit.SECONDS);
        if (t instanceof Exception e) {
            throw e;
        }
        throw new AssertionError(t);
    }

    public static void main(String[] args) throws Exception {
        mode = ThreadConfinement.valueOf(args[1]);
        try (Context ctx = Context.open(args[0])) {
            for (Map.Entry<String, Scenario> s : SCENARIOS.entrySet()) {
                String outcome = "none";
                try {
                    s.getValue().run(ctx);
                } catch (Exception e) {
                    outcome = e.getClass().getSimpleName() + " " + e.getMessage();
                }
                System.out.println("RESULT " + s.getKey() + " " + outcome.replace('\n', ' '));
                System.out.flush();
            }
        }
        System.out.println("ALL DONE");
    }
}
