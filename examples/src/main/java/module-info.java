/** The jrdma command-line tool and examples. */
module io.jrdma.examples {
    requires io.jrdma.ibverbs;
    requires io.jrdma.rdmacm;
    /** Only the benchmark report draws (its plot); the tool itself needs no desktop module. */
    requires static java.desktop;
    /** jrdma perf waits for the JIT to go idle after a warm-up. */
    requires java.management;
    exports io.jrdma.examples;
}
