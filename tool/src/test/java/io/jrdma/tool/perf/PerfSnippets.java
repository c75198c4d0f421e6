package io.jrdma.tool.perf;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;

/** The parts of jrdma perf; compiled so that the Javadoc's examples match the code. */
final class PerfSnippets {

    void test() {
        // @start region="test"
        PerfTest t = PerfTest.of("write-lat");
        t.title();   // "RDMA_Write Latency Test"
        // @end
    }

    void latency(long[] startNanos, int iterations) {
        // @start region="latency"
        LatencyStatistics s = LatencyStatistics.ofStamps(startNanos, iterations, 2);
        s.typicalMicros();
        // @end
    }

    void bandwidth(long[] postedNanos, long[] completedNanos, int iterations) {
        // @start region="bandwidth"
        BandwidthStatistics b = BandwidthStatistics.of(postedNanos, completedNanos, iterations, 65536);
        BandwidthStatistics.inUnits(b.averageBytesPerSecond(), false);   // in MB/sec, 2^20 bytes a second
        // @end
    }

    void result(long[] stamps) {
        // @start region="result"
        PerfResult r = PerfResult.latency(64, 1000, LatencyStatistics.ofStamps(stamps, 1000, 2));
        // @end
    }

    void report(PerfOptions options, LatencyStatistics stats) {
        // @start region="report"
        PerfReport report = new PerfReport(options, System.out);
        report.banner("rxe0", "Ethernet", 1);
        report.add(PerfResult.latency(64, 1000, stats));   // prints the header before the first row
        report.finish();
        // @end
    }

    void link(PerfOptions options, ProtectionDomain pd, CompletionQueue cq, PerfPeer mine) throws Exception {
        // @start region="link"
        try (PerfLink link = PerfLink.open(options)) {
            QueuePair qp = link.createQueuePair(pd.queuePair(QpType.RC).completionQueue(cq));
            PerfPeer peer = link.connect(qp, mine);
            // ...
            link.finish();
        }
        // @end
    }

    void tcpLink(PerfOptions options) throws Exception {
        // @start region="tcp-link"
        try (TcpPerfLink link = TcpPerfLink.open(options)) {
            // ...
        }
        // @end
    }

    void cmLink(PerfOptions options) throws Exception {
        // @start region="cm-link"
        try (CmPerfLink link = CmPerfLink.open(options)) {   // the server returns once a client asks to connect
            // ...
        }
        // @end
    }

    void peer(PerfOptions options, MemoryRegion mr, Endpoint endpoint) {
        // @start region="peer"
        byte[] wire = new PerfPeer(options.setup().hashCode(), mr.address(), mr.remoteKey(), endpoint).toBytes();
        // @end
    }

    void resources(PerfLink link, long dataBytes) throws Exception {
        // @start region="resources"
        PerfResources r = PerfResources.open(link, 132, 20, qp -> qp.capacity(130, 16), dataBytes,
                Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        // @end
    }

    void control(PerfLink link, PerfResources resources, PerfOptions options) throws Exception {
        // @start region="control"
        PerfControl control = new PerfControl(link, resources);
        PerfPeer peer = control.connect(options.setup());
        control.barrier(false);
        // @end
    }

    void session(PerfOptions options, PerfReport report) throws Exception {
        // @start region="session"
        try (PerfLink link = PerfLink.open(options); PerfSession s = new PerfSession(options, link, report, null)) {
            s.run();
        }
        // @end
    }

    void transportRetries() {
        // @start region="transport-retries"
        TransportRetries retries = TransportRetries.of("rxe0");
        long before = retries.read();
        // ... the measured run
        long during = retries.since(before);   // -1 when the device has no such counter
        // @end
    }

    void jitQuiet() throws InterruptedException {
        // @start region="jit-quiet"
        warmUp();
        JitQuiet.await();
        measure();
        // @end
    }

    void warmup() throws InterruptedException {
        // @start region="warmup"
        Warmup.run(20_000, n -> loop(n));   // 4 parts of 5,000, then JitQuiet.await()
        loop(100_000);                      // timed
        // @end
    }

    private void warmUp() {
    }

    private void measure() {
    }

    private void loop(int iterations) {
    }
}
