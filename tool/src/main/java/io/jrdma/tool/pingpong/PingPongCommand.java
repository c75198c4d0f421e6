package io.jrdma.tool.pingpong;

import io.jrdma.ibverbs.Mtu;
import io.jrdma.tool.ToolCommand;
import io.jrdma.tool.pingpong.PingPongOptions.Variant;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code jrdma pingpong {rc,uc,ud,srq} [OPTIONS] [SERVER]}: rdma-core's {@code ibv_*_pingpong} examples in Java,
 * wire-compatible with them in either role. Each variant takes the options of its C example, the way their getopt
 * does (bundled flags, attached values, long options, operands anywhere, numbers as {@code strtol(…, 0)} reads them).
 *
 * {@snippet lang=shell :
 * $ jrdma pingpong rc -g 1 -c               # server
 * $ jrdma pingpong rc -g 1 -c 10.0.2.15     # client
 * }
 */
@Command(name = "pingpong", description = {"Ping-pong SENDs like ibv_{rc,uc,ud,srq}_pingpong, interoperating with "
        + "them.", "Without SERVER, wait for a client."})
public final class PingPongCommand extends ToolCommand {

    private PingPongCommand(PrintStream out, PrintStream err) {
        super(out, err);
    }

    /** The command with a subcommand per variant, printing to {@code out} and {@code err}. */
    public static CommandLine commandLine(PrintStream out, PrintStream err) {
        return new CommandLine(new PingPongCommand(out, err))
                .addSubcommand(new Rc(out, err))
                .addSubcommand(new Uc(out, err))
                .addSubcommand(new Ud(out, err))
                .addSubcommand(new Srq(out, err));
    }

    /** Bare {@code jrdma pingpong}: the usage, as an error. */
    @Override
    public Integer call() {
        err.print(usageMessage());
        return 2;
    }

    /** What every variant takes, with the C examples' defaults. */
    abstract static class VariantCommand extends ToolCommand {
        private final Variant variant;

        @Option(names = {"-p", "--port"}, paramLabel = "<port>", converter = CNumber.class,
                description = "listen on/connect to port <port> (default ${DEFAULT-VALUE})")
        private int port = 18515;

        @Option(names = {"-d", "--ib-dev"}, paramLabel = "<dev>",
                description = "use IB device <dev> (default first device found)")
        private String device;

        @Option(names = {"-i", "--ib-port"}, paramLabel = "<port>", converter = CNumber.class,
                description = "use port <port> of IB device (default ${DEFAULT-VALUE})")
        private int ibPort = 1;

        @Option(names = {"-s", "--size"}, paramLabel = "<size>", converter = CNumber.class,
                description = "size of message to exchange (default 4096; ud: 1024, at most the port's active MTU)")
        private Integer size;

        @Option(names = {"-r", "--rx-depth"}, paramLabel = "<dep>", converter = CNumber.class,
                description = "number of receives to post at a time (default ${DEFAULT-VALUE})")
        private int rxDepth = 500;

        @Option(names = {"-n", "--iters"}, paramLabel = "<iters>", converter = CNumber.class,
                description = "number of exchanges (default ${DEFAULT-VALUE})")
        private int iters = 1000;

        @Option(names = {"-l", "--sl"}, paramLabel = "<sl>", converter = CNumber.class,
                description = "service level value")
        private int serviceLevel;

        @Option(names = {"-e", "--events"}, description = "sleep on CQ events (default poll)")
        private boolean events;

        @Option(names = {"-g", "--gid-idx"}, paramLabel = "<gid index>", converter = CNumber.class,
                description = "local port gid index (required on RoCE)")
        private int gidIndex = -1;

        @Option(names = {"-c", "--chk"}, description = "validate received buffer")
        private boolean validate;

        @Parameters(paramLabel = "[SERVER]", hideParamSyntax = true,
                description = "the server to connect to; without it, wait for a client")
        private List<String> operands = new ArrayList<>();

        VariantCommand(Variant variant, PrintStream out, PrintStream err) {
            super(out, err);
            this.variant = variant;
        }

        /** The path MTU, for the variants that take -m. */
        Mtu mtu() {
            return Mtu.MTU_1024;
        }

        /** The queue pairs, for the variant that takes -q. */
        int queuePairs() {
            return 1;
        }

        /** Refuses the C options jrdma recognizes but does not implement. */
        void refuseUnsupported() {
        }

        final void refuse(boolean given, String option, String what) {
            if (given) {
                throw usage(option + " (" + what + ") is not supported by jrdma");
            }
        }

        /** The options, checked as the C example checks them. */
        PingPongOptions options() {
            refuseUnsupported();
            if (operands.size() > 1) {
                throw usage("one server at most, not " + operands);
            }
            check("-p", port, 1, 65535);
            check("-i", ibPort, 1, 255);
            int bytes = check("-s", size != null ? size : variant.defaultSize(), 1, Integer.MAX_VALUE);
            check("-r", rxDepth, 1, Integer.MAX_VALUE);
            check("-n", iters, 1, Integer.MAX_VALUE);
            check("-l", serviceLevel, 0, 15);
            check("-g", gidIndex, -1, 255);
            int qps = queuePairs();
            if (qps > rxDepth) {
                throw usage("rx_depth " + rxDepth + " is too small for " + qps
                        + " QPs -- must have at least one receive per QP");
            }
            return new PingPongOptions(variant, port, device, ibPort, bytes, mtu(), rxDepth, iters, serviceLevel,
                    events, gidIndex, validate, qps, operands.isEmpty() ? null : operands.getFirst());
        }

        @Override
        public Integer call() throws Exception {
            try (PingPong pingPong = PingPong.of(options(), out)) {
                return pingPong.run();
            }
        }
    }

    /** The variants with a connection, which take its path MTU. */
    abstract static class ConnectedCommand extends VariantCommand {
        @Option(names = {"-m", "--mtu"}, paramLabel = "<size>", converter = CNumber.class,
                description = "path MTU (default 1024)")
        private Integer mtuBytes;

        ConnectedCommand(Variant variant, PrintStream out, PrintStream err) {
            super(variant, out, err);
        }

        @Override
        final Mtu mtu() {
            if (mtuBytes == null) {
                return Mtu.MTU_1024;
            }
            try {
                return Mtu.ofBytes(mtuBytes);
            } catch (IllegalArgumentException e) {
                throw usage("-m must be 256, 512, 1024, 2048 or 4096, not " + mtuBytes);
            }
        }
    }

    @Command(name = "rc", description = "ibv_rc_pingpong: reliable connection")
    static final class Rc extends ConnectedCommand {
        @Option(names = {"-o", "--odp"}, hidden = true)
        private boolean odp;

        @Option(names = {"-O", "--iodp"}, hidden = true)
        private boolean implicitOdp;

        @Option(names = {"-P", "--prefetch"}, hidden = true)
        private boolean prefetch;

        @Option(names = {"-t", "--ts"}, hidden = true)
        private boolean timestamps;

        @Option(names = {"-j", "--dm"}, hidden = true)
        private boolean deviceMemory;

        @Option(names = {"-N", "--new_send"}, hidden = true)
        private boolean newSend;

        Rc(PrintStream out, PrintStream err) {
            super(Variant.RC, out, err);
        }

        @Override
        void refuseUnsupported() {
            refuse(odp, "-o", "on-demand paging");
            refuse(implicitOdp, "-O", "implicit on-demand paging");
            refuse(prefetch, "-P", "ODP prefetch");
            refuse(timestamps, "-t", "completion timestamps");
            refuse(deviceMemory, "-j", "device memory");
            refuse(newSend, "-N", "the new post send API");
        }
    }

    @Command(name = "uc", description = "ibv_uc_pingpong: unreliable connection")
    static final class Uc extends ConnectedCommand {
        Uc(PrintStream out, PrintStream err) {
            super(Variant.UC, out, err);
        }
    }

    @Command(name = "ud", description = "ibv_ud_pingpong: unreliable datagram")
    static final class Ud extends VariantCommand {
        Ud(PrintStream out, PrintStream err) {
            super(Variant.UD, out, err);
        }
    }

    @Command(name = "srq", description = "ibv_srq_pingpong: reliable connections sharing a receive queue")
    static final class Srq extends ConnectedCommand {
        @Option(names = {"-q", "--num-qp"}, paramLabel = "<num>", converter = CNumber.class,
                description = "number of QPs to use (default ${DEFAULT-VALUE})")
        private int queuePairs = 16;

        @Option(names = {"-o", "--odp"}, hidden = true)
        private boolean odp;

        Srq(PrintStream out, PrintStream err) {
            super(Variant.SRQ, out, err);
        }

        @Override
        int queuePairs() {
            return check("-q", queuePairs, 1, PingPongOptions.MAX_QP - 1);
        }

        @Override
        void refuseUnsupported() {
            refuse(odp, "-o", "on-demand paging");
        }
    }

    /** A number as {@code strtol(…, 0)} reads it (decimal, 0x hex or 0 octal), but whole. */
    static final class CNumber implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            long n;
            try {
                n = Long.decode(value);
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a number");
            }
            if (n != (int) n) {
                throw new TypeConversionException("'" + value + "' is out of range");
            }
            return (int) n;
        }
    }
}
