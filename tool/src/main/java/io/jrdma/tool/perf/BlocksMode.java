package io.jrdma.tool.perf;

import java.util.Locale;

/**
 * How {@code jrdma blocks} moves a layout of blocks, and where the blocks are strided: where the verb can scatter or
 * gather, the zero-copy variant gives it one scatter/gather entry per block and the packed variant has the CPU copy
 * the blocks through a contiguous staging buffer instead; the other end is contiguous in both variants.
 *
 * {@snippet class=io.jrdma.tool.perf.BlocksSnippets region=mode}
 */
enum BlocksMode {
    /** The client's strided blocks gathered into one RDMA WRITE to the server's contiguous buffer. */
    WRITE("gather WRITE: client's strided blocks -> server's contiguous buffer"),
    /** The server's contiguous buffer read by one RDMA READ scattered into the client's strided blocks. */
    READ("scatter READ: server's contiguous buffer -> client's strided blocks"),
    /** The client's strided blocks gathered into one SEND, scattered by one RECV into the server's strided blocks. */
    SEND("gather SEND into scatter RECV: client's strided blocks -> server's strided blocks");

    private final String description;

    BlocksMode(String description) {
        this.description = description;
    }

    /** The name on the command line and in the results. */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    String description() {
        return description;
    }

    /** Whether the client initiates everything and the server only lends its memory. */
    boolean oneSided() {
        return this != SEND;
    }

    /** Whether the server's end of the data is strided (else contiguous). */
    boolean serverStrided() {
        return this == SEND;
    }

    /** Whether the destination, the side whose bytes are checked, is the server. */
    boolean serverReceives() {
        return this != READ;
    }

    static BlocksMode of(String label) {
        for (BlocksMode m : values()) {
            if (m.label().equals(label)) {
                return m;
            }
        }
        throw new IllegalArgumentException("--mode takes write, read and send, not '" + label + "'");
    }
}
