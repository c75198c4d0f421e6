package io.jrdma.tool.perf;

import io.jrdma.ibverbs.RdmaException;

/**
 * read-lat and atomic-lat: the client times each complete operation; the server's memory just answers, so the
 * server measures nothing.
 */
final class OneSidedLoop extends PerfLoop {
    OneSidedLoop(PerfOptions options, PerfResources resources, PerfControl control, int area) {
        super(options, resources, control, area);
    }

    /**
     * This loop is entered once per size, so the JIT would reach it only late in a run, if at all: each operation is
     * a call of {@link #step}, which the warm-up compiles.
     */
    @Override
    PerfResult measure(int size, int count, boolean timed) throws RdmaException {
        if (!client) {
            return null;
        }
        configureOneSided(size);
        data.signaled(true);
        int iters = timed ? Integer.MAX_VALUE : count;
        long deadline = deadline();
        long first = System.nanoTime();
        int done = 0;
        while (done < iters && step(done, timed, deadline)) {
            done++;
        }
        long end = System.nanoTime();
        loopEnd = end;
        if (!timed) {
            return PerfResult.latency(size, iters, LatencyStatistics.ofStamps(stamps, iters, test.rttFactor()));
        }
        return PerfResult.averageLatency(size, done, (end - first) / 1e3 / Math.max(done, 1));
    }

    /** Operation {@code i}, stamped with its start; false, without it, once the deadline has passed (timed). */
    private boolean step(int i, boolean timed, long deadline) throws RdmaException {
        long now = System.nanoTime();
        if (timed) {
            if (now - deadline > 0) {
                return false;
            }
        } else {
            stamps[i] = now;
        }
        postAndComplete();
        return true;
    }
}
