package io.jrdma.tool.perf;

import io.jrdma.tool.ToolCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code jrdma endpoint-perf {lat,rate} [OPTIONS] [SERVER]}: jrdma-endpoint's message path measured the way
 * {@code jrdma perf send-lat} and {@code send-bw} measure the verbs. Both sides drive a
 * {@link io.jrdma.endpoint.Worker} from their own thread, busy-polling {@code progress()}, and send through the
 * allocation-free {@code trySend} with an {@link io.jrdma.endpoint.OperationHandler}; messages arrive in
 * {@code onMessage}. {@code lat}: a ping-pong, the server echoing each message, one-way latency as half the round trip;
 * {@code rate}: the client keeps {@code -t} messages in flight, resuming in {@code onWritable} after a refusal, and the
 * server releases each as it comes.
 *
 * {@snippet lang=shell :
 * $ jrdma endpoint-perf lat -b 10.0.2.15 --sizes 64,4096            # server
 * $ jrdma endpoint-perf lat --sizes 64,4096 --json 10.0.2.15         # client
 * }
 */
@Command(name = "endpoint-perf", sortOptions = false,
        description = {"Message latency (lat) and message rate (rate) through jrdma-endpoint's handler API, "
                + "like jrdma perf send-lat and send-bw.", "Without SERVER, start a server on -b and wait for a client."},
        footer = "Both sides must run the same test with the same --sizes and -t.")
public final class EndpointPerfCommand extends ToolCommand {
    private static final int MAX_ITERATIONS = 100_000_000;

    @Parameters(index = "0", paramLabel = "TEST", description = "lat (ping-pong) or rate (pipelined messages)")
    private String test;

    @Parameters(index = "1..*", paramLabel = "[SERVER]", hideParamSyntax = true,
            description = "the server to connect to")
    private List<String> servers = new ArrayList<>();

    @Option(names = {"-b", "--bind"}, paramLabel = "<address>",
            description = "server: the device address to listen on (required); client: the local device address "
                    + "(default the one the route to SERVER leaves from)")
    private String bind;

    @Option(names = {"-p", "--port"}, paramLabel = "<port>", description = "the listener's port "
            + "(default ${DEFAULT-VALUE})")
    private int port = EndpointPerfOptions.DEFAULT_PORT;

    @Option(names = {"-s", "--size"}, paramLabel = "<size>", description = "message size (default 64)")
    private Integer size;

    @Option(names = "--sizes", paramLabel = "<list>",
            description = {"run these sizes, in this order: SIZE or SIZE:ITERS items, comma-separated (ITERS "
                    + "overrides -n for that size)", "e.g. 64:20000,4096:5000"})
    private String sizeList;

    @Option(names = {"-n", "--iters"}, paramLabel = "<iters>",
            description = "iterations per size (at least " + PerfOptions.MIN_ITERATIONS
                    + "; default 1000 lat, 5000 rate)")
    private Integer iterations;

    @Option(names = "--warmup", paramLabel = "<iters>",
            description = "untimed iterations per size before the timed ones (default ${DEFAULT-VALUE}; 0: none; "
                    + "at most " + (PerfOptions.MAX_WARMUP_BYTES >> 20) + " MiB of messages per size)")
    private int warmup = PerfOptions.DEFAULT_WARMUP;

    @Option(names = {"-t", "--depth"}, paramLabel = "<n>",
            description = "rate: messages in flight (default " + EndpointPerfOptions.DEFAULT_DEPTH + "); lat: 1")
    private Integer depth;

    @Option(names = "--json", description = "print the results as one JSON document, as jrdma perf --json does")
    private boolean json;

    @Option(names = "--api", paramLabel = "<api>", description = "what the client sends through: handler (trySend "
            + "with an OperationHandler, allocation-free), future (send, a CompletableFuture per message) or "
            + "connection (RdmaConnection's blocking send and receive, lat only; give it to the server too); "
            + "default ${DEFAULT-VALUE}")
    private String api = "handler";

    /** The command, printing to {@code out} and its progress to {@code err}. */
    public EndpointPerfCommand(PrintStream out, PrintStream err) {
        super(out, err);
    }

    @Override
    public Integer call() throws Exception {
        EndpointPerfOptions options = options();
        if (options.api() == EndpointPerfOptions.Api.CONNECTION) {
            new ConnectionPerf(options, out).run();
        } else {
            new EndpointPerf(options, out).run();
        }
        return 0;
    }

    /** The options, checked as a whole. */
    EndpointPerfOptions options() {
        boolean latency = switch (test) {
            case "lat" -> true;
            case "rate" -> false;
            default -> throw usage("TEST is lat or rate, not '" + test + "'");
        };
        EndpointPerfOptions.Api flavour = switch (api) {
            case "handler" -> EndpointPerfOptions.Api.HANDLER;
            case "future" -> EndpointPerfOptions.Api.FUTURE;
            case "connection" -> EndpointPerfOptions.Api.CONNECTION;
            default -> throw usage("--api is handler, future or connection, not '" + api + "'");
        };
        if (flavour == EndpointPerfOptions.Api.CONNECTION && !latency) {
            throw usage("an RdmaConnection sends one message at a time: --api connection measures lat only");
        }
        if (servers.size() > 1) {
            throw usage("one server at most, not " + servers);
        }
        if (servers.isEmpty() && bind == null) {
            throw usage("the server listens on a device address: give it with -b");
        }
        check("-p", port, 1, 65535);
        check("--warmup", warmup, 0, PerfOptions.MAX_WARMUP);
        if (size != null && sizeList != null) {
            throw usage("-s and --sizes each choose the sizes: give one of them");
        }
        if (size != null) {
            check("-s", size, 1, PerfOptions.MAX_SIZE);
        }
        Map<Integer, Integer> list = sizeList != null
                ? PerfCommand.sizeList(this, "--sizes", sizeList, MAX_ITERATIONS) : null;
        if (iterations != null) {
            check("-n", iterations, PerfOptions.MIN_ITERATIONS, MAX_ITERATIONS);
        }
        int d = check("-t", depth != null ? depth : latency ? 1 : EndpointPerfOptions.DEFAULT_DEPTH, 1, 4096);
        if (latency && d != 1) {
            throw usage("a ping-pong keeps one message in flight: -t must be 1");
        }
        Map<Integer, Integer> counts = PerfCommand.ownCounts(list);
        List<Integer> sizes = list != null ? List.copyOf(list.keySet()) : List.of(size != null ? size : 64);
        return new EndpointPerfOptions(latency, sizes, counts,
                iterations != null ? iterations : latency ? 1000 : 5000, warmup, d, port, bind,
                servers.isEmpty() ? null : servers.getFirst(), json, flavour);
    }
}
