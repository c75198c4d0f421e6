package io.jrdma.tool.perf;

import io.jrdma.endpoint.WorkerOptions;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What {@code jrdma endpoint-perf} runs, checked.
 *
 * @param latency    ping-pong latency ({@code lat}) or pipelined message rate ({@code rate})
 * @param sizes      message sizes, in the order they run
 * @param counts     iterations of the sizes that have their own count
 * @param iterations iterations of the other sizes
 * @param warmup     untimed iterations per size before the timed ones (at most {@link PerfOptions#MAX_WARMUP_BYTES}
 *                   of messages)
 * @param depth      messages in flight at once ({@code rate}; 1 for {@code lat})
 * @param port       the listener's port
 * @param bind       the server's listen address, or the client's local device address (null: the one its route
 *                   to the server leaves from)
 * @param server     the server to connect to; null on the server
 * @param json       one JSON document instead of the table
 * @param api        what the client sends through (the server echoes or releases through the endpoint's handler, or
 *                   with {@link Api#CONNECTION} through an {@code RdmaConnection})
 */
record EndpointPerfOptions(boolean latency, List<Integer> sizes, Map<Integer, Integer> counts, int iterations,
                           int warmup, int depth, int port, String bind, String server, boolean json, Api api) {

    /** The API a run measures, named in its JSON document. */
    enum Api {
        /** {@code Endpoint.trySend} with an {@code OperationHandler}: allocation-free. */
        HANDLER("trySend+onMessage"),
        /** {@code Endpoint.send}: a {@code CompletableFuture} per message. */
        FUTURE("send+onMessage"),
        /** {@code RdmaConnection}'s blocking {@code send} and {@code receive}, on both sides. */
        CONNECTION("RdmaConnection send+receive");

        final String label;

        Api(String label) {
            this.label = label;
        }
    }

    static final int DEFAULT_PORT = 18516;
    static final int DEFAULT_DEPTH = 128;

    EndpointPerfOptions {
        sizes = List.copyOf(sizes);
        counts = Map.copyOf(counts);
    }

    boolean client() {
        return server != null;
    }

    /** {@code endpoint-lat} or {@code endpoint-rate}, as the JSON document names the test. */
    String label() {
        return latency ? "endpoint-lat" : "endpoint-rate";
    }

    int iterations(int size) {
        return counts.getOrDefault(size, iterations);
    }

    /** The warm-up of {@code size}, at most 64 MiB of messages, as {@code jrdma perf} limits its own. */
    int warmup(int size) {
        return (int) Math.min(warmup, Math.max(1, PerfOptions.MAX_WARMUP_BYTES / size));
    }

    /** The largest message of the run, at least 64 bytes: what the receivers of either API are sized for. */
    int messageSize() {
        return Math.max(64, sizes.stream().mapToInt(Integer::intValue).max().orElse(64));
    }

    /**
     * Both sides' worker: receive buffers as large as the largest message, a credit per message in flight, no
     * keepalive (its RDMA writes would land in the timed runs) and one endpoint. The send queue has room beyond the
     * window for the credit updates the endpoint sends on its own.
     */
    WorkerOptions workerOptions() {
        return WorkerOptions.defaults()
                .withMessageSize(messageSize())
                .withCredits(Math.max(32, depth), 1)
                .withDepths(Math.min(4096, depth + 64), 1)
                .withFailureDetection(Duration.ZERO, 14, 6);
    }
}
