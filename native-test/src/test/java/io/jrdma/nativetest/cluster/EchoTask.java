package io.jrdma.nativetest.cluster;

import io.jrdma.rdmacm.ConnectionClosedException;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The far end of a cross-node stream: accepts one {@link RdmaConnection} on ADDRESS:PORT, sends every message back as
 * it came, until the client closes, and reports the bytes and their CRC-32 as it received them.
 * Arguments: ADDRESS PORT MAX_MESSAGE_SIZE ACK_TIMEOUT RETRY_COUNT (see {@link ConnectionOptions}).
 */
final class EchoTask implements NodeTask {
    /** How long the task waits for its client, and for each message once connected. */
    static final Duration PATIENCE = Duration.ofSeconds(120);

    @Override
    public String run(List<String> args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(args.get(0), Integer.parseInt(args.get(1)));
        ConnectionOptions options = ConnectionOptions.defaults().withMaxMessageSize(Integer.parseInt(args.get(2)))
                .withRetries(Integer.parseInt(args.get(3)), Integer.parseInt(args.get(4)));
        CRC32 crc = new CRC32();
        long bytes = 0;
        try (RdmaListener listener = RdmaListener.bind(address, options);
             RdmaConnection c = listener.accept(PATIENCE)) {
            if (c == null) {
                throw new AssertionError("no client connected within " + PATIENCE);
            }
            while (true) {
                byte[] message;
                try {
                    message = c.receive(PATIENCE);
                } catch (ConnectionClosedException closed) {
                    break;
                }
                if (message == null) {
                    throw new AssertionError("no message for " + PATIENCE + " after " + bytes + " bytes");
                }
                crc.update(message);
                bytes += message.length;
                c.send(message);
            }
        }
        return StreamResult.format(bytes, crc.getValue());
    }
}
