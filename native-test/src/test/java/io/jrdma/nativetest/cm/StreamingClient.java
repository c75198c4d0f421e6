package io.jrdma.nativetest.cm;

import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/** A child process for tests: connects and sends messages until it is killed. */
public final class StreamingClient {
    private StreamingClient() {
    }

    public static void main(String[] args) throws Exception {
        InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        RdmaConnection c = RdmaConnection.connect(server, ConnectionOptions.defaults(), Duration.ofMinutes(2));
        byte[] message = new byte[1024];
        for (long i = 0; ; i++) {
            message[0] = (byte) i;
            c.send(message);
        }
    }
}
