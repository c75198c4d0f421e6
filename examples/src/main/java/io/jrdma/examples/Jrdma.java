package io.jrdma.examples;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code jrdma} command-line tool.
 *
 * <pre>{@code
 * $ scripts/jrdma devices -v
 * $ scripts/jrdma pingpong rc -g 1 -c 10.0.2.15
 * }</pre>
 *
 * <p>Errors are one line and a non-zero exit; {@code --debug} adds the stack trace.
 */
public final class Jrdma {

    private Jrdma() {
    }

    public static void main(String[] args) {
        System.exit(run(List.of(args), System.out, System.err));
    }

    /** Runs one command line, printing to {@code out} and {@code err}; returns the exit status. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        boolean debug = args.contains("--debug");
        List<String> rest = args.stream().filter(a -> !a.equals("--debug")).toList();
        if (rest.isEmpty() || rest.getFirst().equals("-h") || rest.getFirst().equals("--help")) {
            out.println(usage());
            return rest.isEmpty() ? 2 : 0;
        }
        try {
            return switch (rest.getFirst()) {
                case "devices" -> new DevicesCommand(out).run(rest.subList(1, rest.size()));
                case "demo" -> new DemoCommand(out).run(rest.subList(1, rest.size()));
                case "hello" -> new HelloCommand(out).run(rest.subList(1, rest.size()));
                case "pingpong" -> new PingPongCommand(out).run(rest.subList(1, rest.size()));
                case "rping" -> new RpingCommand(out, err).run(rest.subList(1, rest.size()));
                case "perf" -> new PerfCommand(out, err).run(rest.subList(1, rest.size()));
                case "blocks" -> new BlocksCommand(out).run(rest.subList(1, rest.size()));
                case "stream" -> new StreamCommand(out, err).run(rest.subList(1, rest.size()));
                default -> {
                    err.println("jrdma: unknown command '" + rest.getFirst() + "'\n" + usage());
                    yield 2;
                }
            };
        } catch (IllegalArgumentException e) {
            err.println("jrdma: " + e.getMessage());
            return 2;
        } catch (Exception e) {
            err.println("jrdma: " + e.getMessage());
            if (debug) {
                e.printStackTrace(err);
            }
            return 1;
        }
    }

    static String usage() {
        return String.join("\n", Arrays.asList(
                "usage: jrdma [--debug] COMMAND [OPTIONS]",
                "  devices [-v] [-d DEVICE]   list RDMA devices and their ports (like ibv_devinfo); -v adds the GID table",
                "  demo [-a ADDRESS] [-n N]   a server and a client connected through the CM: send/receive, RDMA write",
                "                             and read, atomics, each checked, with latencies",
                "  hello [-d DEVICE] [-i PORT] [-g GID] [-p TCP_PORT] [SERVER]",
                "                             two processes exchange LID, QPN, PSN, GID, address and rkey over TCP; the",
                "                             client RDMA-writes \"hello verbs\" into the server's memory",
                "  pingpong {rc,uc,ud,srq} [OPTIONS] [SERVER]",
                "                             ping-pong SENDs like ibv_{rc,uc,ud,srq}_pingpong, interoperating with them;",
                "                             without SERVER, wait for a client; pingpong VARIANT -h lists the options",
                "  rping (-s|-c) -a ADDRESS [-p PORT] [-C COUNT] [-S SIZE] [-I SOURCE] [-v] [-V]",
                "                             librdmacm's rping protocol, interoperable with the C rping",
                "  perf {send,write,read,atomic}-{lat,bw} [OPTIONS] [SERVER]",
                "                             perftest-style latency and bandwidth tests (ib_write_lat, ib_send_bw, ...)",
                "                             with perftest's tables or --json; perf -h lists the options",
                "  blocks [--block-size B] [--blocks N] [--stride S] [-m MODES] [OPTIONS] [SERVER]",
                "                             blocks laid out with a stride moved by scatter/gather (gather WRITE,",
                "                             scatter READ, gather SEND into scatter RECV) against CPU packing: time,",
                "                             bandwidth and CPU per message, every byte checked; blocks -h for more",
                "  stream (-s|-c) -a ADDRESS [-p PORT] [-n N] [-S SIZE] [-t SECONDS]",
                "                             a checked message stream over the CM: the client sends N patterned",
                "                             messages, the server checks each and answers its CRC-32; -s serves until",
                "                             killed (or N streams); both print a summary with the CRC-32 of all bytes"));
    }
}
