package io.jrdma.benchmarks.report;

import io.jrdma.benchmarks.report.CpuSample.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProfileReportTest {
    /** As perf 6.1's {@code perf script -F comm,pid,tid,time,event,ip,sym,dso} prints them in the VM. */
    private static final String SCRIPT = """
                        java  1432/1438    242.101000:              cpu-clock:  ffffffff810a964f __tasklet_schedule_common ([kernel.kallsyms])
                        java  1432/1438    242.102000:              cpu-clock:      7faabba05060 boolean io.jrdma.tool.perf.PerfSession.oneSidedStep(int, boolean, long) (/tmp/perf-1432.map)
             C2 CompilerThre  1432/1463    242.103000:              cpu-clock:      7faad4352979 PhaseIdealLoop::build_loop_tree (/usr/lib/jvm/jdk/lib/server/libjvm.so)
                        java  1432/1438    242.104000:              cpu-clock:      7faad49c8360 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)
                        java  1432/1438    242.105000:              cpu-clock:      7faad0001000 rxe_post_send (/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so)
                        java  1432/1438    242.106000:      sched:sched_switch:  ffffffff81a5 __schedule ([kernel.kallsyms])
                 ib_read_lat   595/595      47.773297:              cpu-clock:      55b2c4624252 [unknown] (/usr/bin/ib_read_lat)
            """;

    @Test
    void parsesCpuClockSamplesWithThreadNamesAndJavaSignatures() {
        List<CpuSample> s = CpuSample.parse(SCRIPT);
        assertEquals(6, s.size(), "the sched_switch line is not a cpu-clock sample");
        assertEquals(new CpuSample(1438, 242.101, "__tasklet_schedule_common", "[kernel.kallsyms]"), s.get(0));
        assertEquals("boolean io.jrdma.tool.perf.PerfSession.oneSidedStep(int, boolean, long)", s.get(1).symbol());
        assertEquals(1463, s.get(2).tid());
        assertEquals(List.of(Kind.KERNEL, Kind.TOOL, Kind.JVM, Kind.OTHER, Kind.PROVIDER, Kind.TOOL),
                s.stream().map(CpuSample::kind).toList());
    }

    @Test
    void findsTheLastBusyKernelBoundStretchRunningRxeAsTheMeasuredRun() {
        List<CpuSample> client = new ArrayList<>();
        add(client, 10, 0.0, 1.0, 1000, "ld-linux-x86-64.so.2");   // start-up, in user space
        add(client, 10, 1.0, 2.0, 700, "rxe_requester", "[kernel.kallsyms]");   // warm-up
        add(client, 10, 2.0, 4.0, 4, "libjvm.so");                 // waiting for the JIT
        add(client, 10, 4.0, 6.0, 600, "[kernel.kallsyms]");       // measured
        add(client, 10, 4.01, 6.0, 50, "rxe_responder", "[kernel.kallsyms]");
        add(client, 10, 4.05, 6.0, 30, "perf-7.map");
        add(client, 11, 4.0, 6.0, 10, "libjvm.so");                // another thread of the client
        add(client, 10, 6.0, 6.5, 900, "libjvm.so");               // exit
        add(client, 10, 6.5, 6.8, 500, "[kernel.kallsyms]");       // its unmapping: kernel, but no rxe
        List<CpuSample> server = new ArrayList<>();
        add(server, 20, 0.0, 8.0, 5, "libjvm.so");
        RunProfile p = RunProfile.of("Java 1", Measurement.latency(64, 50, 40), client, server, 20000, 1000);
        assertEquals(4.0, p.from(), 1e-9);
        assertEquals(6.0, p.to(), 1e-9);
        int all = p.client().size();
        assertEquals(2 * 650 + 2 * 30 + 2 * 10, all, 3);
        assertEquals(all - 20, p.mainThread(), 2);
        assertEquals(10, p.server(), 1);
        assertEquals(all * 1000.0 / 20000, p.cpuMicrosPerOperation(), 1e-9);
        Map<Kind, Integer> kinds = p.byKind();
        assertEquals(60, kinds.get(Kind.TOOL), 2);
        assertEquals(20, kinds.get(Kind.JVM), 2);
    }

    @Test
    void refusesARunWithoutAKernelBoundStretch() {
        List<CpuSample> client = new ArrayList<>();
        add(client, 10, 0.0, 1.0, 1000, "libjvm.so");
        assertThrows(IllegalArgumentException.class,
                () -> RunProfile.of("C 1", Measurement.latency(64, 50, 40), client, List.of(), 100, 1000));
    }

    @Test
    void writesTheReportFromAResultsDirectory(@TempDir Path dir) throws IOException {
        results(dir, "date=2026-11-23\nsize=64\niterations=1000\nwarmup=500\nfrequency=1000\nkernel=6.1.0\n", """
                 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]
                 64      1000          18.80          2605.85      64.95    	       70.04       	51.06
                """, "{\"results\":[{\"bytes\":64,\"t_typical_usec\":62.5}]}",
                script("ib_read_lat", "rxe_responder", "[kernel.kallsyms]", 0.2),
                script("java", "rxe_responder", "[kernel.kallsyms]", 0.3)
                        + script("java", "boolean io.jrdma.X.step()", "/tmp/perf-5.map", 0.3));
        List<RunProfile> runs = ProfileReport.collect(dir, BenchReport.environment(
                Files.readString(dir.resolve("env.txt"))));
        assertEquals(List.of("C 1", "Java 1"), runs.stream().map(RunProfile::name).toList());
        String md = ProfileReport.markdown(BenchReport.environment(Files.readString(dir.resolve("env.txt"))), runs);
        assertContains(md,
                "| C 1 | 64.95 | 0.2 | 160.0 | 100.0% |",
                "| Java 1 | 62.50 | 0.3 | 270.0 | 88.9% | 0.0% | 0.0% | 11.1% |",
                "Median typical latency: C 64.95 µs, Java 62.50 µs (Java/C 0.96)",
                "| `rxe_responder` | 100.0% | 88.9% |",
                "| `boolean io.jrdma.X.step()` | 0.0% | 11.1% |",
                "# Where a read's time goes: jrdma perf and ib_read_lat under perf",
                "read-lat at 64 B, 1000 reads a run",
                "at least 20% of the time");
    }

    @Test
    void writesABandwidthReportNamedAfterItsTest(@TempDir Path dir) throws IOException {
        results(dir, "date=2026-11-23\ntest=write-bw\nsize=64\niterations=50000\nwarmup=100000\nfrequency=1000\n",
                perftestBandwidth("3.37", "0.055214"),
                "{\"results\":[{\"bytes\":64,\"bw_average_mb_per_sec\":2.80,\"msg_rate_mpps\":0.045875}]}",
                script("ib_write_bw", "rxe_requester", "[kernel.kallsyms]", 1.0),
                script("java", "rxe_requester", "[kernel.kallsyms]", 1.25));
        String md = page(dir, "write-bw");
        assertContains(md,
                "# Where a message's time goes: jrdma perf and ib_write_bw under perf",
                "write-bw at 64 B, 50000 messages a run (jrdma perf first runs 100000 untimed)",
                "both ends of a write run in the one kernel",
                "| Run | MB/s | Measured s | Client CPU µs per message |",
                "| C 1 | 3.37 | 1.0 | 16.0 | 100.0% |",
                "| Java 1 | 2.80 | 1.3 | 20.0 | 100.0% |",
                "Median bandwidth: C 3.37 MB/s, Java 2.80 MB/s (Java/C 0.83)",
                "(ib_write_bw, libc and the rest for C;");
    }

    @Test
    void profilesTheEndpointsMessageRateAgainstSendBandwidth(@TempDir Path dir) throws IOException {
        // jrdma endpoint-perf's JSON: its rows inside the test's object, the measured run where it says.
        results(dir, "date=2026-11-28\ntest=endpoint-rate\nsize=64\niterations=50000\nwarmup=100000\nfrequency=1000\n",
                perftestBandwidth("0.96", "0.015000"),
                "{\"test\":\"rate\",\"api\":\"trySend+onMessage\",\"depth\":128,\"warmup\":100000,"
                        + "\"results\":[{\"bytes\":64,\"iterations\":50000,\"bw_average_mb_per_sec\":0.70,"
                        + "\"msg_rate_mpps\":0.010900,\"run_monotonic_ns\":[10000000000,11000000000]}]}",
                script("ib_send_bw", "rxe_requester", "[kernel.kallsyms]", 1.0),
                script("java", "rxe_requester", "[kernel.kallsyms]", 1.5));
        String md = page(dir, "endpoint-rate");
        assertContains(md,
                "# Where a message's time goes: jrdma endpoint-perf and ib_send_bw under perf",
                "jrdma endpoint-perf reports where its measured run began and ended",
                "| C 1 | 0.96 | 1.0 | 16.0 | 100.0% |",
                "| Java 1 | 0.70 | 1.0 | 16.0 | 100.0% |",
                "Median bandwidth: C 0.96 MB/s, Java 0.70 MB/s (Java/C 0.73)");
    }

    @Test
    void namesAnEndpointRateAtAnotherDepthApart() {
        assertEquals("profile-endpoint-rate.md", ProfileReport.pageName(Map.of("test", "endpoint-rate")));
        assertEquals("profile-endpoint-rate.md",
                ProfileReport.pageName(Map.of("test", "endpoint-rate", "depth", "128")));
        assertEquals("profile-endpoint-rate1.md", ProfileReport.pageName(Map.of("test", "endpoint-rate", "depth", "1")));
        assertEquals("profile-send-bw.md", ProfileReport.pageName(Map.of("test", "send-bw", "depth", "1")));
    }

    @Test
    void namesAnotherSizeApart() {
        assertEquals("profile-rstream-lat.md", ProfileReport.pageName(Map.of("test", "rstream-lat", "size", "64")));
        assertEquals("profile-rstream-lat-4096.md",
                ProfileReport.pageName(Map.of("test", "rstream-lat", "size", "4096")));
        assertEquals("profile-endpoint-rate1-4096.md",
                ProfileReport.pageName(Map.of("test", "endpoint-rate", "depth", "1", "size", "4096")));
    }

    /** jrdma perf's JSON, and NettyPerf's: the test's object around its rows; each says where its run was. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            write-lat | jrdma perf and ib_write_lat | {"results":[{"bytes":2,"t_typical_usec":11.2,\
            "run_monotonic_ns":[10500000000,11000000000]}]}
            netty-lat | jrdma-netty's echo (NettyPerf lat) and ib_send_lat | {"test":"netty-rdma-lat",\
            "transport":"rdma","depth":1,"warmup":500,"warmup_seconds":20,"results":[{"bytes":2,\
            "iterations":1000,"warmup_iterations":500,"t_typical_usec":11.2,"t_min_usec":9.1,\
            "run_monotonic_ns":[10500000000,11000000000]}]}
            """)
    void cutsAPingPongOutOfItsSamples(String test, String tools, String json, @TempDir Path dir) throws IOException {
        // C: found where its client spins (800 samples a second from 10 s); Java: where the Java tool says, on
        // CLOCK_MONOTONIC, which its samples' times are on: only the second half of its spinning samples.
        results(dir, "date=2026-11-24\ntest=" + test + "\nsize=2\niterations=1000\nwarmup=500\nfrequency=1000\n", """
                 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]
                 2       1000          9.80           205.85       10.50    	       11.04       	 1.06
                """, json, script("ib_write_lat", "run_iter_lat_write", "/usr/bin/ib_write_lat", 1.0),
                script("java", "void io.jrdma.tool.perf.PerfSession$RoundTrips.step()", "/usr/lib/jvm/libjvm.so", 1.0));
        List<RunProfile> runs = ProfileReport.collect(dir, BenchReport.environment(
                Files.readString(dir.resolve("env.txt"))));
        assertEquals(10.0, runs.get(0).from(), 1e-9);
        assertEquals(11.0, runs.get(0).to(), 1e-9);
        assertEquals(10.5, runs.get(1).from(), 1e-9);
        assertEquals(11.0, runs.get(1).to(), 1e-9);
        assertEquals(400, runs.get(1).client().size(), 1);
        String md = ProfileReport.markdown(BenchReport.environment(Files.readString(dir.resolve("env.txt"))), runs);
        assertContains(md,
                "# Where a round trip's time goes: " + tools + " under perf",
                "`run_monotonic_ns`",
                "on a CPU at least 80% of the time",
                "| C 1 | 10.50 | 1.0 | 800.0 |",
                "| Java 1 | 11.20 | 0.5 | 400.0 |");
    }

    @Test
    void profilesRstreamPerTransferFromItsResultLines(@TempDir Path dir) throws IOException {
        Map<String, String> env = rstreamResults(dir,
                "date=2026-11-26\ntest=rstream-lat\nsize=64\niterations=1000\nwarmup=1000\nfrequency=1000\n",
                "custom    64      1       1k      125k        1.00s      0.03      16.19\n",
                "custom    64      1       1k      125k        2.00s      0.01      39.65\n",
                script("rstream", "rrecv", "/usr/lib/x86_64-linux-gnu/librdmacm.so.1.3.48.0", 1.0),
                script("java", "rxe_requester", "[kernel.kallsyms]", 2.0));
        List<RunProfile> runs = ProfileReport.collect(dir, env);
        assertEquals(2000, runs.get(0).operations(), "two transfers an iteration");
        assertEquals(10.0, runs.get(1).from(), 1e-9, "as long as rstream's time, ending where the client stops");
        assertEquals(12.0, runs.get(1).to(), 1e-9);
        assertContains(ProfileReport.markdown(env, runs),
                "# Where a transfer's time goes: jrdma rstream and rstream under perf",
                "| Run | µs per transfer | Measured s | Client CPU µs per transfer |",
                "| C 1 | 16.19 | 1.0 | 400.0 |",
                "| Java 1 | 39.65 | 2.0 | 800.0 |",
                "(Java/C 2.45)",
                "rsockets (median): C 400.0 µs, Java 0.0 µs; in the kernel: C 0.0 µs, Java 800.0 µs",
                "| `rrecv` | 100.0% | 0.0% |",
                "| `rxe_requester` | kernel | 0.00 | 800.00 | +800.00 |",
                "| `rrecv` | librdmacm (rsockets) | 400.00 | 0.00 | -400.00 |");
    }

    @Test
    void profilesRstreamBandwidthPerTransferOfItsOneIteration(@TempDir Path dir) throws IOException {
        Map<String, String> env = rstreamResults(dir,
                "date=2026-12-01\ntest=rstream-bw\nsize=65536\niterations=500\nwarmup=1\nfrequency=1000\n",
                "custom    64k     500     1       62m         4.00s      0.13    4000.00\n",
                "custom    64k     500     1       62m         4.40s      0.12    4400.00\n",
                script("rstream", "rsend", "/usr/lib/x86_64-linux-gnu/librdmacm.so.1.3.48.0", 1.0),
                script("java", "rsend", "/usr/lib/x86_64-linux-gnu/librdmacm.so.1.3.48.0", 2.0));
        assertEquals("profile-rstream-bw-65536.md", ProfileReport.pageName(env));
        List<RunProfile> runs = ProfileReport.collect(dir, env);
        assertEquals(1000, runs.get(0).operations(), "500 transfers each way");
        assertContains(ProfileReport.markdown(env, runs),
                "one iteration of 500 transfers one way and as many back, 1000 transfers a run",
                "| C 1 | 4000.00 | 4.0 |",
                "| Java 1 | 4400.00 | 4.4 |",
                "(Java/C 1.10)");
    }

    @Test
    void refusesAnUnknownTest(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("env.txt"), "test=read-bw\niterations=10\nfrequency=1000\n");
        Files.createDirectories(dir.resolve("round-1"));
        assertThrows(IllegalArgumentException.class,
                () -> ProfileReport.main(new String[] {dir.toString(), dir.resolve("docs").toString()}));
    }

    /** perftest's bandwidth table of one 64 B row of 50000 messages. */
    private static String perftestBandwidth(String mbPerSecond, String mpps) {
        return """
                 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
                 64         50000            0.00               %s                 %s
                """.formatted(mbPerSecond, mpps);
    }

    /** Writes the report of the results in {@code dir} into {@code dir/docs} and reads its page for {@code test}. */
    private static String page(Path dir, String test) throws IOException {
        Path docs = dir.resolve("docs");
        ProfileReport.main(new String[] {dir.toString(), docs.toString()});
        return Files.readString(docs.resolve("profile-" + test + ".md"));
    }

    private static void assertContains(String md, String... parts) {
        for (String part : parts) {
            assertTrue(md.contains(part), () -> "no '" + part + "' in:\n" + md);
        }
    }

    /**
     * One round of rstream results: the two tools' result lines (under rstream's header) and perf scripts, the Java
     * side's in a text file as jrdma rstream writes it; the run's environment.
     */
    private static Map<String, String> rstreamResults(Path dir, String env, String cLine, String javaLine,
            String cScript, String javaScript) throws IOException {
        String header = "name      bytes   xfers   iters   total       time     Gb/sec  usec/xfer\n";
        results(dir, env, header + cLine, header + javaLine, cScript, javaScript);
        Path round = dir.resolve("round-1");
        Files.move(round.resolve("java.json"), round.resolve("java.txt"));
        return BenchReport.environment(Files.readString(dir.resolve("env.txt")));
    }

    /** A results directory of one round, as {@code scripts/profile} leaves it; the servers left no samples. */
    private static void results(Path dir, String env, String c, String java, String cClient, String javaClient)
            throws IOException {
        Files.writeString(dir.resolve("env.txt"), env);
        Path round = Files.createDirectories(dir.resolve("round-1"));
        Files.writeString(round.resolve("c.txt"), c);   // rstream-lat's too
        Files.writeString(round.resolve("java.json"), java);
        Files.writeString(round.resolve("c.client.perf.txt"), cClient);
        Files.writeString(round.resolve("java.client.perf.txt"), javaClient);
        Files.writeString(round.resolve("c.server.perf.txt"), "");
        Files.writeString(round.resolve("java.server.perf.txt"), "");
    }

    /** Samples of one thread in function "f", {@code perSecond} of them spread over [from, to) seconds. */
    private static void add(List<CpuSample> into, int tid, double from, double to, int perSecond, String dso) {
        add(into, tid, from, to, perSecond, "f", dso);
    }

    private static void add(List<CpuSample> into, int tid, double from, double to, int perSecond, String symbol,
                            String dso) {
        int n = (int) Math.round((to - from) * perSecond);
        for (int i = 0; i < n; i++) {
            into.add(new CpuSample(tid, from + (to - from) * i / n, symbol, dso));
        }
    }

    /** perf script lines: 800 samples a second for {@code seconds} from 10 s, or 100 a second for JIT code. */
    private static String script(String comm, String symbol, String dso, double seconds) {
        StringBuilder sb = new StringBuilder();
        int perSecond = dso.endsWith(".map") ? 100 : 800;
        int n = (int) Math.round(seconds * perSecond);
        for (int i = 0; i < n; i++) {
            sb.append(String.format(java.util.Locale.ROOT, "%16s  5/5    %.6f:     cpu-clock:   ffff0000 %s (%s)%n",
                    comm, 10 + seconds * i / n, symbol, dso));
        }
        return sb.toString();
    }
}
