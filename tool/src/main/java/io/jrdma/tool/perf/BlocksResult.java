package io.jrdma.tool.perf;

/**
 * One row of {@code jrdma blocks}: a mode moved one way (zero-copy or packed), timed by the client, with each side's
 * CPU time.
 *
 * <p>CPU time is the thread CPU time (user and system) of the side's measuring thread over the timed run, per
 * message. Both sides busy-poll for completions, as perftest does, and a busy poll costs as much CPU as it waits: the
 * {@code cpu*Micros} values leave the CPU time of those waits out (read before and after each), which leaves what a
 * message costs the side
 * (copies, posting, and on Soft-RoCE the kernel's protocol work done in the posting thread), and the
 * {@code cpu*TotalMicros} values keep it.
 *
 * {@snippet class=io.jrdma.tool.perf.BlocksSnippets region=result}
 *
 * @param layout               the blocks
 * @param mode                 the mode
 * @param packed               whether the CPU packed and unpacked the blocks (else the device scattered or gathered)
 * @param sges                 scatter/gather entries per work request
 * @param iterations           timed messages
 * @param warmup               untimed messages before them
 * @param typicalMicros        median time per message, in µs
 * @param minMicros            fastest message, in µs
 * @param avgMicros            the timed run's time over its messages, in µs
 * @param clientCpuMicros      the client's CPU time per message outside its waits, in µs
 * @param serverCpuMicros      the server's, in µs
 * @param clientCpuTotalMicros the client's CPU time per message, waits included, in µs
 * @param serverCpuTotalMicros the server's, in µs
 * @param retries              the device's transport retries during the timed run, or -1 when unknown
 */
record BlocksResult(BlockLayout layout, BlocksMode mode, boolean packed, int sges, long iterations, long warmup,
                    double typicalMicros, double minMicros, double avgMicros, double clientCpuMicros,
                    double serverCpuMicros, double clientCpuTotalMicros, double serverCpuTotalMicros, long retries) {

    /** "zero-copy" or "packed". */
    String variant() {
        return packed ? "packed" : "zero-copy";
    }

    /** Payload bytes a second over the timed run, in MB/s (2^20 bytes a second, as perftest counts). */
    double mbPerSecond() {
        return layout.payload() / (avgMicros / 1e6) / (1 << 20);
    }
}
