package io.jrdma.tool.perf;

import io.jrdma.ibverbs.Access;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * One {@code jrdma perf} connection and its measurements: each size's warm-up and measured run of the test's
 * {@link PerfLoop}, between the barriers of its {@link PerfControl}, and their results into the report.
 *
 * <p>Memory layout, the same on both sides: a source area (what this side writes or sends), a target area (what the
 * peer writes, sends or reads, and where reads and atomics land), then the control area. Each size runs between two
 * barriers, so a side never writes into memory the other is still clearing.
 *
 * <p>The timed loops allocate nothing: one reusable work request, one reusable completion array, busy polling, and
 * {@link System#nanoTime()} per iteration into arrays sized up front.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=session}
 */
final class PerfSession implements AutoCloseable {

    private final PerfOptions options;
    private final PerfLink link;
    private final PerfReport report;
    private final TransportRetries retries;
    private final PrintStream progress;
    private final PerfTest test;
    private final boolean client;

    private final PerfResources resources;
    private final PerfControl control;
    private final PerfLoop loop;

    /**
     * Creates the verbs objects on the link's device.
     *
     * @param progress where to show progress (a terminal), or {@code null}
     */
    PerfSession(PerfOptions options, PerfLink link, PerfReport report, PrintStream progress) throws Exception {
        this.options = options;
        this.link = link;
        this.report = report;
        this.progress = progress;
        this.test = options.test();
        this.client = options.client();
        int area = Math.max(64, (options.maxSize() + 63) & ~63);
        int rxDepth = PerfLoop.rxDepth(test);
        retries = TransportRetries.of(link.context().device().name());
        resources = PerfResources.open(link, options.txDepth() + 4, rxDepth + 4,
                qp -> qp.capacity(options.txDepth() + 2, rxDepth).maxInlineData(options.inlineSize()), 2L * area,
                Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC);
        control = new PerfControl(link, resources);
        loop = PerfLoop.of(options, resources, control, area);
    }

    /** Connects, runs every size, and finishes with the peer. */
    void run() throws Exception {
        PerfPeer peer = control.connect(options.setup());
        report.detail(String.format(Locale.ROOT, " local address:  QPN 0x%04x RKey 0x%06x VAddr 0x%016x",
                resources.qp().qpNumber(), resources.mr().remoteKey(), resources.mr().address()));
        report.detail(String.format(Locale.ROOT, " remote address: %sRKey 0x%06x VAddr 0x%016x",
                peer.endpoint() == null ? "" : String.format(Locale.ROOT, "LID 0x%04x QPN 0x%04x PSN 0x%06x ",
                        peer.endpoint().lid(), peer.endpoint().qpn(), peer.endpoint().psn()),
                peer.rkey(), peer.address()));
        loop.connected(peer);
        if (options.warmup() > 0) {
            // Start-up leaves the JIT a backlog; while it lasts the JVM delays compiling the hot path (tiered
            // compilation's back-pressure), so a warm-up run now would mostly run interpreted.
            JitQuiet.await();
        }
        List<Integer> sizes = options.sizes();
        for (int k = 0; k < sizes.size(); k++) {
            int size = sizes.get(k);
            showProgress(k, size);
            loop.prepare(size);
            control.barrier(false);
            long warmedUp = 0;
            int warmup = options.warmup(size);
            int parts = Math.min(Warmup.PARTS, warmup);   // as Warmup's, with a barrier after each part
            for (int part = 0; part < parts; part++) {
                int n = Warmup.partSize(warmup, parts, part);
                PerfResult w = loop.measure(size, n, false);
                warmedUp += w == null ? n : w.iterations();
                loop.prepare(size);   // the ping-pongs' counters start again from zero
                loop.warmedUpPart();
                if (part == parts - 1) {
                    JitQuiet.await();
                }
                control.barrier(false);
            }
            long retriesBefore = retries.read();
            long runStart = System.nanoTime();
            PerfResult r = loop.measure(size, options.iterations(size), options.seconds() > 0);
            if (r != null) {   // null: a server that measures nothing itself (bandwidth, read, atomic)
                r = r.withRun(runStart, loop.loopEnd);
            }
            long retried = retries.since(retriesBefore);
            if (client && !test.latency()) {
                control.sendResults(r);
            }
            control.barrier(k == sizes.size() - 1);
            if (!client && !test.latency()) {
                r = control.receivedResults(size);
            }
            if (r != null) {
                report.add(r.withWarmup(warmedUp).withRetries(retried));
            }
        }
        if (progress != null) {
            progress.print("\r\033[K");
            progress.flush();
        }
        link.finish();
    }

    private void showProgress(int k, int size) {
        if (progress != null) {
            progress.printf(Locale.ROOT, "\r\033[Kjrdma perf %s: %d bytes (%d of %d)%s", test.label(), size, k + 1,
                    options.sizes().size(), options.seconds() > 0 ? ", " + options.seconds() + " s" : "");
            progress.flush();
        }
    }

    @Override
    public void close() throws Exception {
        resources.close();
    }
}
