package io.jrdma.tool.perf;

import io.jrdma.tool.ToolCommand;
import picocli.CommandLine.Option;

/** How {@code jrdma perf} and {@code jrdma blocks} reach their peer: perftest's -d, -i, -x and -p. */
final class LinkOptions {
    @Option(names = {"-d", "--ib-dev"}, paramLabel = "<dev>",
            description = "use IB device <dev> (default first device found)")
    String device;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "<port>",
            description = "use port <port> of the device (default ${DEFAULT-VALUE})")
    int ibPort = 1;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "<index>",
            description = "GID index (default on RoCE: the port's IPv4 RoCE v2 GID)")
    Integer gidIndex;

    @Option(names = {"-p", "--port"}, paramLabel = "<port>",
            description = "listen on/connect to port <port> (default ${DEFAULT-VALUE})")
    int tcpPort = 18515;

    /** Refuses a value out of range, as a usage error of {@code command}. */
    void check(ToolCommand command) {
        command.check("-i", ibPort, 1, 255);
        if (gidIndex != null) {
            command.check("-x", gidIndex, 0, 255);
        }
        command.check("-p", tcpPort, 1, 65535);
    }
}
