package io.jrdma.tool.pingpong;

import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.Mtu;
import io.jrdma.ibverbs.QpType;
import io.jrdma.tool.pingpong.PingPongOptions.Variant;

import java.io.IOException;
import java.util.List;

/** The ping-pong examples and their handshake; compiled so that the Javadoc's examples match the code. */
final class PingPongSnippets {

    void pingPong(PingPongOptions options) throws Exception {
        // @start region="ping-pong"
        try (PingPong p = PingPong.of(options, System.out)) {
            p.run();   // a server: waits for ibv_rc_pingpong -g 1 <this host>
        }
        // @end
    }

    void connected(PingPongOptions options) throws Exception {
        // @start region="connected"
        try (PingPong p = new ConnectedPingPong(options, System.out, QpType.UC)) {
            p.run();
        }
        // @end
    }

    void datagram(PingPongOptions options) throws Exception {
        // @start region="datagram"
        try (PingPong p = new DatagramPingPong(options, System.out)) {
            p.run();
        }
        // @end
    }

    void sharedReceive() throws Exception {
        // @start region="shared-receive"
        // jrdma pingpong srq -q 4 -g 1: 4 queue pairs, GID index 1, the C example's defaults otherwise
        PingPongOptions options = new PingPongOptions(Variant.SRQ, 18515, null, 1, 4096, Mtu.MTU_1024, 500, 1000, 0,
                false, 1, false, 4, null);
        try (PingPong p = new SharedReceivePingPong(options, System.out)) {
            p.run();
        }
        // @end
    }

    void handshake(Endpoint mine) throws IOException {
        // @start region="client"
        List<Endpoint> theirs = PingPongHandshake.asClient("10.0.2.15", 18515, List.of(mine));
        // @end
    }
}
