package io.jrdma.tool.perf;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Optional;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Waits, after a warm-up, until the JIT compilers have been idle for a while, so that a timed run measures the
 * compiled code alone. On a small or emulated machine the compiler threads share the cores with the measurement:
 * a profile of {@code jrdma perf write-bw} in the Soft-RoCE VM showed them on about a third of the samples of the
 * timed run when it started right after a 5,000-message warm-up.
 *
 * <p>Idle means: nothing being compiled and nothing queued (the {@code Compiler.queue} diagnostic command), and no
 * compilation finished. The compilation time alone is not enough: it grows only when a compilation ends, and in an
 * emulated VM one C2 compilation can take seconds.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=jit-quiet}
 */
public final class JitQuiet {
    /** How long the JIT must have been idle. */
    private static final long QUIET_MILLIS = 2_000;
    /** How often to look. */
    private static final long POLL_MILLIS = 250;
    /** The longest wait: a JIT that never settles does not hold the run forever. */
    private static final long MAX_MILLIS = 60_000;

    private JitQuiet() {
    }

    /** Sleeps until the JIT was idle for 2 s, or a minute passed; at once on a JVM that cannot tell. */
    public static void await() throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        Optional<DiagnosticQueue> queue = DiagnosticQueue.find();
        long start = System.nanoTime();
        long quietSince = start;
        long compiled = jit.getTotalCompilationTime();
        while (millisSince(start) < MAX_MILLIS && millisSince(quietSince) < QUIET_MILLIS) {
            Thread.sleep(POLL_MILLIS);
            long now = jit.getTotalCompilationTime();
            if (now != compiled || queue.map(DiagnosticQueue::busy).orElse(false)) {
                quietSince = System.nanoTime();
            }
            compiled = now;
        }
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    /**
     * Whether the output of {@code Compiler.queue} names a compilation: under "Current compiles:" and each
     * "compile queue:" it lists one task per line, or "Empty".
     */
    static boolean busy(String compilerQueue) {
        return compilerQueue.lines().map(String::strip)
                .anyMatch(line -> !line.isEmpty() && !line.equals("Empty") && !line.endsWith(":"));
    }

    /** HotSpot's {@code Compiler.queue}, through the DiagnosticCommand MBean. */
    record DiagnosticQueue(MBeanServer server, ObjectName name) {
        static Optional<DiagnosticQueue> find() {
            try {
                MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
                return server.isRegistered(name) ? Optional.of(new DiagnosticQueue(server, name)) : Optional.empty();
            } catch (JMException e) {
                return Optional.empty();
            }
        }

        boolean busy() {
            try {
                Object out = server.invoke(name, "compilerQueue", new Object[] {null},
                        new String[] {String[].class.getName()});
                return JitQuiet.busy(String.valueOf(out));
            } catch (JMException e) {
                return false;   // the command went away: the compilation time still tells
            }
        }
    }
}
