package io.jrdma.tool.perf;

import java.util.Locale;

/**
 * One of the tests {@code jrdma perf} runs, named like perftest's binaries without the {@code ib_} prefix: a verb
 * ({@code send}, {@code write}, {@code read}, {@code atomic}) measured for latency or bandwidth, with perftest's
 * defaults for it.
 *
 * {@snippet class=io.jrdma.tool.perf.PerfSnippets region=test}
 *
 * @param verb    what the data path posts
 * @param latency latency ({@code -lat}) or bandwidth ({@code -bw})
 */
record PerfTest(Verb verb, boolean latency) {

    /** The operation under test. */
    enum Verb {
        SEND("Send"), WRITE("RDMA_Write"), READ("RDMA_Read"), ATOMIC("Atomic FETCH_AND_ADD");

        private final String title;

        Verb(String title) {
            this.title = title;
        }
    }

    /** perftest's atomics are 8 bytes, whatever -s says. */
    static final int ATOMIC_SIZE = 8;

    /** {@code write-lat}, {@code send-bw} and so on. */
    static PerfTest of(String name) {
        int dash = name.lastIndexOf('-');
        if (dash > 0) {
            String kind = name.substring(dash + 1);
            for (Verb v : Verb.values()) {
                if (v.name().toLowerCase(Locale.ROOT).equals(name.substring(0, dash))
                        && (kind.equals("lat") || kind.equals("bw"))) {
                    return new PerfTest(v, kind.equals("lat"));
                }
            }
        }
        throw new IllegalArgumentException("unknown test '" + name
                + "' (send, write, read or atomic, then -lat or -bw: e.g. write-lat)");
    }

    String label() {
        return verb.name().toLowerCase(Locale.ROOT) + (latency ? "-lat" : "-bw");
    }

    /** The title line of perftest's banner. */
    String title() {
        return verb.title + (latency ? " Latency Test" : " BW Test");
    }

    int defaultSize() {
        return verb == Verb.ATOMIC ? ATOMIC_SIZE : latency ? 2 : 65536;
    }

    int defaultIterations() {
        return latency ? 1000 : 5000;
    }

    int defaultTxDepth() {
        return latency ? 1 : 128;
    }

    /** perftest's default inline sizes: writes and sends may go inline in latency tests, reads and atomics never. */
    int defaultInline() {
        if (!latency) {
            return 0;
        }
        return switch (verb) {
            case WRITE -> 220;
            case SEND -> 236;
            default -> 0;
        };
    }

    /**
     * How many one-way trips one measured iteration is: a write or send ping-pong is timed per round trip and
     * reported as half of it; a read or atomic is one complete operation.
     */
    int rttFactor() {
        return verb == Verb.SEND || verb == Verb.WRITE ? 2 : 1;
    }

    /** Whether the server side drives traffic too (ping-pongs) rather than only serving memory or receives. */
    boolean serverActive() {
        return latency && (verb == Verb.SEND || verb == Verb.WRITE);
    }
}
