package io.jrdma.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code cpu-clock} sample of {@code perf script -F comm,pid,tid,time,event,ip,sym,dso}: which thread ran what,
 * when. Samples of other events are skipped by {@link #parse}.
 *
 * <pre>{@code
 * List<CpuSample> samples = CpuSample.parse(Files.readString(Path.of("client.perf.txt")));
 * }</pre>
 *
 * @param tid     the thread
 * @param seconds the sample's time stamp, in perf's clock
 * @param symbol  the function, {@code [unknown]} when perf could not name it
 * @param dso     the file the code came from: a library, the program, {@code [kernel.kallsyms]}, {@code [vdso]}, or
 *                the JVM's {@code /tmp/perf-PID.map} of JIT-compiled code
 */
public record CpuSample(int tid, double seconds, String symbol, String dso) {
    // comm may hold spaces (a JVM thread's name); a Java symbol holds parentheses, so the dso is the last group.
    private static final Pattern LINE = Pattern.compile(
            "^\\s*.*?\\s+\\d+/(\\d+)\\s+(\\d+\\.\\d+):\\s+cpu-clock:\\s+[0-9a-f]+\\s+(.*?)\\s+\\(([^()]*)\\)\\s*$");

    /** What kind of code a sample ran, by its {@link #dso}. */
    public enum Kind {
        KERNEL("kernel"), PROVIDER("rxe provider"), VERBS("libibverbs"), TOOL("tool (C binary or JIT code)"),
        JVM("JVM runtime"), OTHER("libc, vdso, other"), RDMACM("librdmacm (rsockets)");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** How the report names it. */
        public String label() {
            return label;
        }
    }

    /** The {@code cpu-clock} samples in {@code perfScript}'s text; other lines are skipped. */
    public static List<CpuSample> parse(String perfScript) {
        List<CpuSample> samples = new ArrayList<>();
        for (String line : perfScript.split("\\R")) {
            Matcher m = LINE.matcher(line);
            if (m.matches()) {
                samples.add(new CpuSample(Integer.parseInt(m.group(1)), Double.parseDouble(m.group(2)), m.group(3),
                        m.group(4)));
            }
        }
        return samples;
    }

    /** What kind of code this sample ran. */
    public Kind kind() {
        String file = dso.substring(dso.lastIndexOf('/') + 1);
        if (dso.equals("[kernel.kallsyms]") || dso.startsWith("[kernel.")) {
            return Kind.KERNEL;
        }
        if (file.contains("-rdmav")) {
            return Kind.PROVIDER;
        }
        if (file.startsWith("libibverbs.so")) {
            return Kind.VERBS;
        }
        if (file.startsWith("librdmacm.so")) {
            return Kind.RDMACM;
        }
        if (file.startsWith("ib_") || file.equals("rstream") || (file.startsWith("perf-") && file.endsWith(".map"))) {
            return Kind.TOOL;
        }
        if (file.equals("libjvm.so")) {
            return Kind.JVM;
        }
        return Kind.OTHER;
    }
}
