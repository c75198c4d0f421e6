package io.jrdma.ibverbs.snippets;

import io.jrdma.ibverbs.CompletionChannel;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.ExtendedPoll;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.ThreadConfinement;
import io.jrdma.ibverbs.WcField;
import io.jrdma.ibverbs.WcOpcode;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;

import java.io.IOException;
import java.time.Duration;

/** Completion queues, channels and polling. */
final class CompletionSnippets {

    void busyPoll(Context ctx) throws RdmaException {
        // @start region="busy-poll"
        try (CompletionQueue cq = ctx.createCompletionQueue(256)) {
            WorkCompletions wcs = new WorkCompletions(16);
            // ... create queue pairs on cq, post ...
            int n;
            while ((n = cq.poll(wcs)) == 0) {
                Thread.onSpinWait();
            }
        }
        // @end
    }

    void moderate(CompletionQueue cq) throws RdmaException {
        // @start region="moderate"
        cq.moderate(16, 100);   // one event per 16 completions, or 100 µs after the first
        // @end
    }

    void builder(Context ctx, CompletionChannel channel) throws RdmaException {
        // @start region="builder"
        CompletionQueue cq = ctx.completionQueue(256).channel(channel).vector(0)
                .extended(WcField.BYTE_LEN).confinement(ThreadConfinement.CONFINED).create();
        // @end
    }

    void confinement(Context ctx) throws RdmaException {
        // @start region="confinement"
        CompletionQueue cq = ctx.completionQueue(16).confinement(ThreadConfinement.CONFINED).create();
        assert cq.confinement() == ThreadConfinement.CONFINED;
        // @end
    }

    void extendedFields(Context ctx) throws RdmaException {
        // @start region="extended-fields"
        CompletionQueue cq = ctx.completionQueue(256).extended(WcField.BYTE_LEN, WcField.QP_NUM).create();
        // @end
    }

    void workCompletions(CompletionQueue cq) throws IOException {
        // @start region="work-completions"
        WorkCompletions wcs = new WorkCompletions(16);   // one per polling thread, kept
        int n = cq.poll(wcs);
        for (int i = 0; i < n; i++) {
            if (wcs.status(i) != WcStatus.SUCCESS) {
                throw new IOException("request " + wcs.id(i) + ": " + wcs.status(i).description());
            }
            done(wcs.id(i), wcs.byteLength(i));
        }
        // @end
    }

    void status(WorkCompletions wcs, int i) {
        // @start region="wc-status"
        if (wcs.status(i) != WcStatus.SUCCESS) {
            System.err.println("request " + wcs.id(i) + " failed: " + wcs.status(i).description());
        }
        // @end
    }

    void opcode(WorkCompletions wcs, int i) {
        // @start region="wc-opcode"
        if (wcs.opcode(i) == WcOpcode.RECV) {
            handleMessage(wcs.id(i), wcs.byteLength(i));
        }
        // @end
    }

    void channel(Context ctx, WorkCompletions wcs) throws RdmaException, InterruptedException {
        // @start region="channel"
        CompletionChannel ch = ctx.createCompletionChannel();
        CompletionQueue cq = ctx.completionQueue(256).channel(ch).create();
        cq.requestNotification(false);
        // ... post ...
        CompletionQueue ready = ch.await(Duration.ofSeconds(1));   // null on timeout
        if (ready != null) {
            ready.requestNotification(false);                       // re-arm first, then poll: nothing slips by
            int n = ready.poll(wcs);
        }
        // @end
    }

    void extendedPoll(CompletionQueue cq) throws RdmaException {
        // @start region="extended-poll"
        ExtendedPoll poll = cq.extendedPoll();
        if (poll.start()) {
            do {
                handle(poll.id(), poll.status(), poll.byteLength());
            } while (poll.next());
            poll.end();
        }
        // @end
    }

    private static void done(long id, int bytes) {
    }

    private static void handleMessage(long id, int bytes) {
    }

    private static void handle(long id, WcStatus status, int bytes) {
    }
}
