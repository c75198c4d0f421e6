package io.jrdma.examples;

import io.jrdma.ibverbs.Mtu;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The command line of {@code jrdma pingpong VARIANT}: the options of rdma-core's {@code ibv_*_pingpong}, parsed the
 * way their getopt does (bundled flags, attached values, long options, operands anywhere), checked up front.
 *
 * <pre>{@code
 * PingPongOptions o = PingPongOptions.parse(List.of("rc", "-g", "1", "-c", "10.0.2.15"));
 * o.server();   // "10.0.2.15": this side is the client
 * }</pre>
 *
 * @param variant      which example this is
 * @param port         TCP port of the handshake (-p)
 * @param device       device name (-d), or {@code null} for the first device
 * @param ibPort       device port (-i)
 * @param size         message size in bytes (-s)
 * @param mtu          path MTU (-m)
 * @param rxDepth      receives kept posted (-r)
 * @param iters        number of exchanges (-n)
 * @param serviceLevel service level (-l)
 * @param events       sleep on completion events instead of busy polling (-e)
 * @param gidIndex     local GID index (-g), or -1 for none
 * @param validate     the client marks, the server checks the first byte of every page (-c)
 * @param queuePairs   queue pairs sharing the receive queue (-q, srq only; 1 otherwise)
 * @param server       the server to connect to, or {@code null} to be the server
 */
record PingPongOptions(Variant variant, int port, String device, int ibPort, int size, Mtu mtu, int rxDepth,
                       int iters, int serviceLevel, boolean events, int gidIndex, boolean validate, int queuePairs,
                       String server) {

    /** The four examples, each with its own getopt string and defaults (those of rdma-core 44). */
    enum Variant {
        RC("p:d:i:s:m:r:n:l:eg:oOPtcjN", 4096),
        UC("p:d:i:s:m:r:n:l:eg:c", 4096),
        UD("p:d:i:s:r:n:l:eg:c", 1024),
        SRQ("p:d:i:s:m:q:r:n:l:eog:c", 4096);

        private final String getopt;
        private final int defaultSize;

        Variant(String getopt, int defaultSize) {
            this.getopt = getopt;
            this.defaultSize = defaultSize;
        }

        String label() {
            return name().toLowerCase();
        }

        boolean accepts(char option) {
            return option != ':' && getopt.indexOf(option) >= 0;
        }

        boolean takesValue(char option) {
            int at = getopt.indexOf(option);
            return at + 1 < getopt.length() && getopt.charAt(at + 1) == ':';
        }
    }

    /** srq_pingpong exchanges a fixed table of this many destinations; -q must stay below it. */
    static final int MAX_QP = 256;

    private static final Map<String, Character> LONG_NAMES = Map.ofEntries(
            Map.entry("port", 'p'), Map.entry("ib-dev", 'd'), Map.entry("ib-port", 'i'), Map.entry("size", 's'),
            Map.entry("mtu", 'm'), Map.entry("rx-depth", 'r'), Map.entry("iters", 'n'), Map.entry("sl", 'l'),
            Map.entry("events", 'e'), Map.entry("gid-idx", 'g'), Map.entry("chk", 'c'), Map.entry("num-qp", 'q'),
            Map.entry("odp", 'o'), Map.entry("iodp", 'O'), Map.entry("prefetch", 'P'), Map.entry("ts", 't'),
            Map.entry("dm", 'j'), Map.entry("new_send", 'N'));

    /** The C options jrdma recognizes but does not implement. */
    private static final Map<Character, String> REFUSED = Map.of(
            'o', "on-demand paging", 'O', "implicit on-demand paging", 'P', "ODP prefetch",
            't', "completion timestamps", 'j', "device memory", 'N', "the new post send API");

    /**
     * Parses {@code args}: the variant ({@code rc}, {@code uc}, {@code ud} or {@code srq}), then its options.
     *
     * @throws IllegalArgumentException for anything the C example would reject, or jrdma does not implement
     */
    static PingPongOptions parse(List<String> args) {
        if (args.isEmpty()) {
            throw new IllegalArgumentException("pingpong needs a variant: rc, uc, ud or srq");
        }
        Variant variant = switch (args.getFirst()) {
            case "rc" -> Variant.RC;
            case "uc" -> Variant.UC;
            case "ud" -> Variant.UD;
            case "srq" -> Variant.SRQ;
            default -> throw new IllegalArgumentException("pingpong: unknown variant '" + args.getFirst()
                    + "' (rc, uc, ud or srq)");
        };
        return new Parser(variant).parse(args.subList(1, args.size()));
    }

    /** The option summary of {@code variant}, like the C usage text. */
    static String usage(Variant v) {
        List<String> lines = new ArrayList<>(List.of(
                "usage: jrdma pingpong " + v.label() + " [OPTIONS]          start a server and wait for a client",
                "       jrdma pingpong " + v.label() + " [OPTIONS] SERVER   connect to the server at SERVER",
                "  -p, --port=<port>      listen on/connect to port <port> (default 18515)",
                "  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)",
                "  -i, --ib-port=<port>   use port <port> of IB device (default 1)",
                "  -s, --size=<size>      size of message to exchange (default " + v.defaultSize
                        + (v == Variant.UD ? ", at most the port's active MTU)" : ")")));
        if (v.accepts('m')) {
            lines.add("  -m, --mtu=<size>       path MTU (default 1024)");
        }
        if (v.accepts('q')) {
            lines.add("  -q, --num-qp=<num>     number of QPs to use (default 16)");
        }
        lines.addAll(List.of(
                "  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)",
                "  -n, --iters=<iters>    number of exchanges (default 1000)",
                "  -l, --sl=<sl>          service level value",
                "  -e, --events           sleep on CQ events (default poll)",
                "  -g, --gid-idx=<gid index> local port gid index (required on RoCE)",
                "  -c, --chk              validate received buffer"));
        return String.join("\n", lines);
    }

    /** getopt_long over one variant's option string. */
    private static final class Parser {
        private final Variant variant;
        private int port = 18515;
        private String device;
        private int ibPort = 1;
        private int size;
        private Mtu mtu = Mtu.MTU_1024;
        private int rxDepth = 500;
        private int iters = 1000;
        private int serviceLevel;
        private boolean events;
        private int gidIndex = -1;
        private boolean validate;
        private int queuePairs;
        private final List<String> operands = new ArrayList<>();

        Parser(Variant variant) {
            this.variant = variant;
            this.size = variant.defaultSize;
            this.queuePairs = variant == Variant.SRQ ? 16 : 1;
        }

        PingPongOptions parse(List<String> args) {
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                if (a.equals("--")) {
                    operands.addAll(args.subList(i + 1, args.size()));
                    break;
                } else if (a.startsWith("--")) {
                    i = longOption(a.substring(2), args, i);
                } else if (a.startsWith("-") && a.length() > 1) {
                    i = shortOptions(a, args, i);
                } else {
                    operands.add(a);
                }
            }
            if (operands.size() > 1) {
                throw usageError("one server at most, not " + operands);
            }
            if (queuePairs > rxDepth) {
                throw usageError("rx_depth " + rxDepth + " is too small for " + queuePairs
                        + " QPs -- must have at least one receive per QP");
            }
            return new PingPongOptions(variant, port, device, ibPort, size, mtu, rxDepth, iters, serviceLevel,
                    events, gidIndex, validate, queuePairs, operands.isEmpty() ? null : operands.getFirst());
        }

        private int longOption(String body, List<String> args, int i) {
            int eq = body.indexOf('=');
            String name = eq < 0 ? body : body.substring(0, eq);
            Character option = LONG_NAMES.get(name);
            if (option == null || !variant.accepts(option)) {
                throw usageError("unknown option '--" + name + "'");
            }
            if (!variant.takesValue(option)) {
                if (eq >= 0) {
                    throw usageError("--" + name + " takes no value");
                }
                apply(option, null);
                return i;
            }
            if (eq >= 0) {
                apply(option, body.substring(eq + 1));
                return i;
            }
            apply(option, valueAfter("--" + name, args, i));
            return i + 1;
        }

        private int shortOptions(String a, List<String> args, int i) {
            for (int k = 1; k < a.length(); k++) {
                char option = a.charAt(k);
                if (!variant.accepts(option)) {
                    throw usageError("unknown option '-" + option + "'");
                }
                if (variant.takesValue(option)) {
                    if (k + 1 < a.length()) {
                        apply(option, a.substring(k + 1));
                        return i;
                    }
                    apply(option, valueAfter("-" + option, args, i));
                    return i + 1;
                }
                apply(option, null);
            }
            return i;
        }

        private String valueAfter(String option, List<String> args, int i) {
            if (i + 1 >= args.size()) {
                throw usageError(option + " needs a value");
            }
            return args.get(i + 1);
        }

        private void apply(char option, String value) {
            if (REFUSED.containsKey(option)) {
                throw usageError("-" + option + " (" + REFUSED.get(option) + ") is not supported by jrdma");
            }
            switch (option) {
                case 'p' -> port = number(option, value, 1, 65535);
                case 'd' -> device = value;
                case 'i' -> ibPort = number(option, value, 1, 255);
                case 's' -> size = number(option, value, 1, Integer.MAX_VALUE);
                case 'm' -> mtu = mtu(value);
                case 'q' -> queuePairs = number(option, value, 1, MAX_QP - 1);
                case 'r' -> rxDepth = number(option, value, 1, Integer.MAX_VALUE);
                case 'n' -> iters = number(option, value, 1, Integer.MAX_VALUE);
                case 'l' -> serviceLevel = number(option, value, 0, 15);
                case 'e' -> events = true;
                case 'g' -> gidIndex = number(option, value, -1, 255);
                case 'c' -> validate = true;
                default -> throw new AssertionError(option);
            }
        }

        private Mtu mtu(String value) {
            try {
                return Mtu.ofBytes(number('m', value, 0, Integer.MAX_VALUE));
            } catch (IllegalArgumentException e) {
                throw usageError("-m must be 256, 512, 1024, 2048 or 4096, not '" + value + "'");
            }
        }

        /** A number as strtol(…, 0) reads it (decimal, 0x hex or 0 octal), but whole and within range. */
        private int number(char option, String value, int min, int max) {
            long n;
            try {
                n = Long.decode(value);
            } catch (NumberFormatException e) {
                throw usageError("-" + option + " needs a number, not '" + value + "'");
            }
            if (n < min || n > max) {
                throw usageError("-" + option + " must be in [" + min + ", " + max + "], not " + value);
            }
            return (int) n;
        }

        private IllegalArgumentException usageError(String message) {
            return new IllegalArgumentException("pingpong " + variant.label() + ": " + message);
        }
    }
}
