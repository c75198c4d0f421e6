/** The jrdma command-line tool. */
module io.jrdma.tool {
    // The exported package's public helpers take and throw their types.
    requires transitive io.jrdma.ibverbs;
    requires io.jrdma.rdmacm;
    requires io.jrdma.nio;
    requires io.jrdma.endpoint;
    requires transitive info.picocli;
    /** jrdma perf waits for the JIT to go idle after a warm-up. */
    requires java.management;
    exports io.jrdma.tool;
    /** picocli fills the commands' option fields by reflection. */
    opens io.jrdma.tool to info.picocli;
    opens io.jrdma.tool.perf to info.picocli;
    opens io.jrdma.tool.pingpong to info.picocli;
}
