package io.jrdma.examples;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.rdmacm.ConnectionClosedException;
import io.jrdma.rdmacm.ConnectionOptions;
import io.jrdma.rdmacm.RdmaConnection;
import io.jrdma.rdmacm.RdmaListener;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
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
 * <pre>{@code
 * jrdma stream -s -a 10.0.2.15              # serve clients (each on its own thread) until killed
 * jrdma stream -c -a 10.0.2.15 -n 1000      # send 1000 checked messages of 4096 bytes
 * }</pre>
 *
 * <p>{@code -t} is how long the client tries to connect (default 60 s). Both sides print one summary line a stream, with the CRC-32 over all its bytes: {@code N messages, B bytes
 * verified, crc32 X}. The client exits 0 when every answer matched; a server with {@code -n N} exits after N
 * streams, 0 if all were complete and correct.
 */
final class StreamCommand {
    private static final String NAME = "stream";
    private static final int HEADER = Long.BYTES;
    private static final int ANSWER = Long.BYTES + Integer.BYTES;
    private static final Duration T = Duration.ofSeconds(30);

    private final PrintStream out;
    private final PrintStream err;
    private Boolean server;
    private InetAddress address;
    private int port = 7180;
    private int count = 1000;
    private int size = 4096;
    private Duration connectTimeout = Duration.ofSeconds(60);

    StreamCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(List<String> args) throws Exception {
        parse(args);
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
        try (RdmaConnection c = RdmaConnection.connect(at, options(), connectTimeout)) {
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
        return messages + " messages, " + bytes + " bytes verified, crc32 " + String.format("%08x", all.getValue());
    }

    private ConnectionOptions options() {
        return ConnectionOptions.defaults().withMaxMessageSize(Math.max(size, ANSWER));
    }

    private void parse(List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            switch (args.get(i)) {
                case "-s" -> server = true;
                case "-c" -> server = false;
                case "-a" -> address = host(Args.value(NAME, args, i++));
                case "-p" -> port = Args.number(NAME, "-p", Args.value(NAME, args, i++), 1, 65535);
                case "-n" -> count = Args.number(NAME, "-n", Args.value(NAME, args, i++), 0, Integer.MAX_VALUE);
                case "-t" -> connectTimeout = Duration.ofSeconds(
                        Args.number(NAME, "-t", Args.value(NAME, args, i++), 1, 24 * 3600));
                case "-S" -> size = Args.number(NAME, "-S", Args.value(NAME, args, i++), HEADER, 1 << 20);
                default -> throw new IllegalArgumentException(NAME + ": unknown option '" + args.get(i) + "'");
            }
        }
        if (server == null || address == null) {
            throw new IllegalArgumentException(NAME + ": give -s (server) or -c (client), and -a ADDRESS");
        }
        if (server && !args.contains("-n")) {
            count = 0;
        }
    }

    private static InetAddress host(String name) {
        try {
            return InetAddress.getByName(name);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(NAME + ": unknown host '" + name + "'");
        }
    }
}
