package io.jrdma.tool.perf;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.SendOpcode;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * write-lat and send-lat: the client sends first, each side answers what it received; every iteration is one round
 * trip. As in perftest, a side awaits its own send's completion before the peer's message. A write is seen by polling
 * the last byte of the target area for the iteration's counter.
 */
final class PingPongLoop extends PerfLoop {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    /** Receives kept posted for send-lat, as perftest keeps, though a ping-pong needs one. */
    static final int RX_DEPTH = 16;

    PingPongLoop(PerfOptions options, PerfResources resources, PerfControl control, int area) {
        super(options, resources, control, area);
    }

    @Override
    PerfResult measure(int size, int count, boolean timed) throws RdmaException {
        boolean write = test.verb() == PerfTest.Verb.WRITE;
        data.reset().id(DATA_ID).opcode(write ? SendOpcode.RDMA_WRITE : SendOpcode.SEND).signaled(true)
                .inline(size <= maxInline).add(mr, 0, size);
        if (write) {
            data.rdma(remoteBase + area, rkey);
        }
        RoundTrips run = new RoundTrips(write, size, timed ? Integer.MAX_VALUE : count, timed);
        boolean more;
        do {
            more = run.step();
        } while (more);
        long end = System.nanoTime();
        loopEnd = end;
        if (!timed) {
            return PerfResult.latency(size, run.iters,
                    LatencyStatistics.ofStamps(stamps, run.iters, test.rttFactor()));
        }
        if (client) {
            control.writeStop(run.sent);
        }
        return PerfResult.averageLatency(size, run.sent,
                (end - run.first) / 1e3 / Math.max(run.sent, 1) / test.rttFactor());
    }

    /**
     * One ping-pong run's state. As in {@link StreamLoop}, its loop is entered once per size, so each iteration is a
     * call of {@link #step}, a method the warm-up compiles.
     */
    private final class RoundTrips {
        final boolean write;
        final int iters;
        final boolean timed;
        final boolean watchStop;
        final long deadline;
        /** Where the peer's write lands last, and where this side's counter goes. */
        final long pollAt;
        final long postAt;
        int sent;
        int received;
        long first;

        RoundTrips(boolean write, int size, int iters, boolean timed) {
            this.write = write;
            this.iters = iters;
            this.timed = timed;
            this.watchStop = timed && !client;
            this.deadline = deadline();
            this.pollAt = area + size - 1;
            this.postAt = size - 1;
        }

        /** Awaits the peer's message (but for the client's first send), then sends; whether the run goes on. */
        boolean step() throws RdmaException {
            if (received < iters && !(sent == 0 && client)) {
                if (!(write ? awaitWrite(pollAt, (byte) (received + 1), watchStop) : awaitReceive(watchStop))) {
                    return false;
                }
                received++;
            }
            if (sent < iters) {
                long now = System.nanoTime();
                if (timed) {
                    if (client && now - deadline > 0) {
                        return false;
                    }
                    if (sent == 0) {
                        first = now;
                    }
                } else {
                    stamps[sent] = now;
                }
                sent++;
                if (write) {
                    mem.set(ValueLayout.JAVA_BYTE, postAt, (byte) sent);
                }
                postAndComplete();
            }
            return sent < iters || received < iters;
        }
    }

    private boolean awaitWrite(long at, byte counter, boolean watchStop) {
        while ((byte) BYTE.getVolatile(mem, at) != counter) {
            if (watchStop && control.stopCount() >= 0) {
                return false;
            }
        }
        return true;
    }

    private boolean awaitReceive(boolean watchStop) throws RdmaException {
        while (recvCq.poll(one) == 0) {
            if (watchStop && control.stopCount() >= 0) {
                return false;
            }
        }
        PerfControl.check(one, 0);
        qp.postReceive(receive);
        return true;
    }
}
