package io.jrdma.tool.pingpong;

import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.RdmaException;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The TCP exchange of the libibverbs pingpong examples, byte for byte: every endpoint travels as the NUL-terminated
 * text {@code "%04x:%06x:%06x:%s"} (LID, QPN, PSN, the 16 GID bytes as 32 hex digits) in a 52-byte message. The
 * client writes its endpoints first; the server reads them, connects, answers with its own, and waits for the
 * client's {@code "done"}.
 *
 * {@snippet class=io.jrdma.tool.pingpong.PingPongSnippets region=client}
 */
final class PingPongHandshake {
    /** {@code sizeof "0000:000000:000000:00000000000000000000000000000000"}: the text and its NUL. */
    static final int MESSAGE_BYTES = 52;
    /** {@code sizeof "done"}: the C client sends the NUL too. */
    private static final byte[] DONE = "done\0".getBytes(StandardCharsets.US_ASCII);
    private static final HexFormat HEX = HexFormat.of();

    /** What the server does with the client's endpoints before it answers (the C server connects its QPs). */
    @FunctionalInterface
    interface BeforeReply {
        void accept(List<Endpoint> remote) throws RdmaException;
    }

    private PingPongHandshake() {
    }

    /** The 52-byte message announcing {@code e}. */
    static byte[] encode(Endpoint e) {
        String text = String.format(Locale.ROOT, "%04x:%06x:%06x:%s", e.lid(), e.qpn(), e.psn(),
                HEX.formatHex(e.gid()));
        return Arrays.copyOf(text.getBytes(StandardCharsets.US_ASCII), MESSAGE_BYTES);
    }

    /** The endpoint a 52-byte message announces. */
    static Endpoint decode(byte[] message) {
        if (message.length != MESSAGE_BYTES) {
            throw new IllegalArgumentException("a pingpong message is " + MESSAGE_BYTES + " bytes, not "
                    + message.length);
        }
        int end = 0;
        while (end < message.length && message[end] != 0) {
            end++;
        }
        String text = new String(message, 0, end, StandardCharsets.US_ASCII);
        String[] f = text.split(":", -1);
        try {
            if (f.length != 4 || f[3].length() != 32) {
                throw new NumberFormatException();
            }
            return new Endpoint(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                    HEX.parseHex(f[3]));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed pingpong message '" + text + "'");
        }
    }

    /** Connects to the server at {@code host}, sends {@code mine} and returns as many endpoints of the server's. */
    static List<Endpoint> asClient(String host, int port, List<Endpoint> mine) throws IOException {
        try (Socket s = connect(host, port)) {
            OutputStream out = s.getOutputStream();
            for (Endpoint e : mine) {
                out.write(encode(e));
            }
            List<Endpoint> theirs = read(s.getInputStream(), mine.size());
            out.write(DONE);
            return theirs;
        }
    }

    /**
     * Waits on {@code port} for one client, reads as many endpoints as {@code mine} holds, runs {@code beforeReply}
     * on them, answers with {@code mine} and waits for the client's {@code "done"}.
     */
    static List<Endpoint> asServer(int port, List<Endpoint> mine, BeforeReply beforeReply)
            throws IOException, RdmaException {
        Socket s;
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(port), 1);
            s = listener.accept();
        }
        try (s) {
            InputStream in = s.getInputStream();
            List<Endpoint> theirs = read(in, mine.size());
            beforeReply.accept(theirs);
            for (Endpoint e : mine) {
                s.getOutputStream().write(encode(e));
            }
            byte[] done = in.readNBytes(DONE.length);
            if (!Arrays.equals(done, DONE)) {
                throw new IOException("the client did not confirm the exchange with \"done\"");
            }
            return theirs;
        }
    }

    private static Socket connect(String host, int port) throws IOException {
        IOException last = null;
        for (InetAddress a : InetAddress.getAllByName(host)) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(a, port));
                return s;
            } catch (IOException e) {
                s.close();
                last = e;
            }
        }
        throw new IOException("couldn't connect to " + host + ":" + port
                + (last == null ? "" : ": " + last.getMessage()));
    }

    private static List<Endpoint> read(InputStream in, int count) throws IOException {
        List<Endpoint> endpoints = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] message = in.readNBytes(MESSAGE_BYTES);
            if (message.length != MESSAGE_BYTES) {
                throw new EOFException("the peer closed the handshake after " + i + " of " + count
                        + " addresses (is it the same pingpong variant, with the same -q?)");
            }
            endpoints.add(decode(message));
        }
        return endpoints;
    }
}
