package io.jrdma.tool;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.rdmacm.ConnectionClosedException;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;

/**
 * {@code jrdma stream (-s|-c) -a ADDRESS [-p PORT] [-n N] [-S SIZE] [-t SECONDS]}: a checked message stream over
 * {@link RdmaConnection}, for testing a link end to end (containers, CI). The client sends message 0, 1, 2, ...:
 * the 8-byte big-endian sequence number, then byte {@code k} = {@code (7 * seq + k) % 251}. The server checks
 * each one and answers with its sequence number and the CRC-32 of what it received; the client checks that
 * against what it sent. A final 8-byte message {@code -1 - COUNT} ends the stream cleanly, so the server can
 * tell a complete stream from a peer that went away mid-transfer.
 *
 * {@snippet lang=shell :
 * $ jrdma stream -s -a 10.0.2.15              # serve clients (each on its own thread) until killed
 * $ jrdma stream -c -a 10.0.2.15 -n 1000      # send 1000 checked messages of 4096 bytes
 * }
 *
 * <p>{@code -t} is how long the client tries to connect (default 60 s). Both sides print one summary line a stream, with the CRC-32 over all its bytes: {@code N messages, B bytes
 * verified, crc32 X}. The client exits 0 when every answer matched; a server with {@code -n N} exits after N
 * streams, 0 if all were complete and correct.
 */
@Command(name = "stream", sortOptions = false,
        description = {"A checked message stream over the CM, for testing a link end to end.",
                "The client sends N patterned messages, the server checks each and answers its CRC-32; -s serves "
                        + "until killed (or N streams). Both print a summary with the CRC-32 of all bytes."})
final class StreamCommand extends ToolCommand {
    private static final String NAME = "stream";
    private static final int HEADER = Long.BYTES;
    private static final int MAX_SIZE = 1 << 20;
    private static final int ANSWER = Long.BYTES + Integer.BYTES;
    private static final Duration T = Duration.ofSeconds(30);

    @Option(names = "-s", description = "serve streams")
    private boolean server;

    @Option(names = "-c", description = "send a stream")
    private boolean client;

    @Option(names = "-a", paramLabel = "<address>", description = "address to listen on or connect to")
    private InetAddress address;

    @Option(names = "-p", paramLabel = "<port>", description = "port (default ${DEFAULT-VALUE})")
    private int port = 7180;

    @Option(names = "-n", paramLabel = "<n>",
            description = "messages to send (client, default 1000; 0: until killed), streams to serve (server, "
                    + "default 0: until killed)")
    private Integer count;

    @Option(names = "-S", paramLabel = "<size>", description = "message size, " + HEADER + " to " + MAX_SIZE
            + " (default ${DEFAULT-VALUE})")
    private int size = 4096;

    @Option(names = "-t", paramLabel = "<seconds>", description = "how long the client tries to connect "
            + "(default ${DEFAULT-VALUE})")
    private int connectSeconds = 60;

    StreamCommand(PrintStream out, PrintStream err) {
        super(out, err);
    }

    @Override
    public Integer call() throws Exception {
        check();
        InetSocketAddress at = new InetSocketAddress(address, port);
        return server ? serve(at) : send(at);
    }

    /** Byte {@code k} of message {@code seq} (k from {@link #HEADER} on). */
    static byte patternByte(long seq, int k) {
        return (byte) Math.floorMod(7 * seq + k, 251);
    }

    private int send(InetSocketAddress at) throws Exception {
        ByteBuffer message = ByteBuffer.allocate(size);
        CRC32 one = new CRC32();
        CRC32 all = new CRC32();
        try (RdmaConnection c = RdmaConnection.connect(at, options(), Duration.ofSeconds(connectSeconds))) {
            long seq = 0;
            for (; count == 0 || seq < count; seq++) {
                message.clear();
                message.putLong(seq);
                for (int k = HEADER; k < size; k++) {
                    message.put(patternByte(seq, k));
                }
                one.reset();
                one.update(message.array());
                all.update(message.array());
                c.send(message.array());
                ByteBuffer answer = answer(c.receive(T), seq);
                if (answer.getLong() != seq || answer.getInt() != (int) one.getValue()) {
                    err.println("stream: message " + seq + ": the server received other bytes than were sent");
                    return 1;
                }
            }
            c.send(ByteBuffer.allocate(HEADER).putLong(-1 - seq).array());
            out.println("stream: " + summary(seq, seq * size, all));
        }
        return 0;
    }

    private static ByteBuffer answer(byte[] bytes, long seq) {
        if (bytes == null || bytes.length != ANSWER) {
            throw new IllegalStateException("stream: no answer to message " + seq + " within " + T);
        }
        return ByteBuffer.wrap(bytes);
    }

    private int serve(InetSocketAddress at) throws Exception {
        AtomicInteger failed = new AtomicInteger();
        try (RdmaListener listener = RdmaListener.bind(at, options())) {
            out.println("stream: listening on " + address.getHostAddress() + ":" + port);
            Thread[] streams = new Thread[Math.max(count, 0)];
            for (int n = 0; count == 0 || n < count; n++) {
                RdmaConnection c;
                do {
                    c = listener.accept(T);
                } while (c == null);
                RdmaConnection accepted = c;
                Thread t = Thread.ofVirtual().name("stream-" + n).start(() -> {
                    if (!check(accepted)) {
                        failed.incrementAndGet();
                    }
                });
                if (count > 0) {
                    streams[n] = t;
                }
            }
            for (Thread t : streams) {
                t.join();
            }
        }
        return failed.get() == 0 ? 0 : 1;
    }

    /** Checks one client's stream to its end; true if it was complete and every message correct. */
    private boolean check(RdmaConnection c) {
        String peer = c.peerAddress().getAddress().getHostAddress() + ":" + c.peerAddress().getPort();
        CRC32 one = new CRC32();
        CRC32 all = new CRC32();
        long seq = 0;
        long bytes = 0;
        try (c) {
            for (byte[] m = c.receive(T); m != null; m = c.receive(T)) {
                ByteBuffer in = ByteBuffer.wrap(m);
                long got = m.length >= HEADER ? in.getLong() : Long.MIN_VALUE;
                if (m.length == HEADER && got == -1 - seq) {
                    out.println("stream: " + peer + ": complete, " + summary(seq, bytes, all));
                    return true;
                }
                int bad = got == seq ? firstWrongByte(m, seq) : 0;
                if (bad >= 0) {
                    out.println("stream: " + peer + ": message " + seq + " is wrong at byte " + bad + "; closing");
                    return false;
                }
                one.reset();
                one.update(m);
                all.update(m);
                c.send(ByteBuffer.allocate(ANSWER).putLong(seq).putInt((int) one.getValue()).array());
                seq++;
                bytes += m.length;
            }
            out.println("stream: " + peer + ": nothing for " + T + " after " + summary(seq, bytes, all));
        } catch (ConnectionClosedException e) {
            out.println("stream: " + peer + ": disconnected mid-transfer after " + summary(seq, bytes, all));
        } catch (RdmaException | InterruptedException | RuntimeException e) {
            out.println("stream: " + peer + ": failed after " + summary(seq, bytes, all) + ": " + e.getMessage());
        }
        return false;
    }

    private static int firstWrongByte(byte[] m, long seq) {
        for (int k = HEADER; k < m.length; k++) {
            if (m[k] != patternByte(seq, k)) {
                return k;
            }
        }
        return -1;
    }

    private static String summary(long messages, long bytes, CRC32 all) {
        return messages + " messages, " + bytes + " bytes verified, crc32 " + String.format(Locale.ROOT, "%08x", all.getValue());
    }

    private ConnectionOptions options() {
        return ConnectionOptions.defaults().withMaxMessageSize(Math.max(size, ANSWER));
    }

    private void check() {
        if (server == client || address == null) {
            throw usage("give -s (server) or -c (client), and -a ADDRESS");
        }
        check("-p", port, 1, 65535);
        check("-S", size, HEADER, MAX_SIZE);
        check("-t", connectSeconds, 1, 24 * 3600);
        if (count == null) {
            count = server ? 0 : 1000;
        }
        check("-n", count, 0, Integer.MAX_VALUE);
    }
}
