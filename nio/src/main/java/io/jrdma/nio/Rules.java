package io.jrdma.nio;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Which binds and connects go over RDMA: an ordered list of {@link Rule}s, the first that matches decides, and no
 * match means TCP. The syntax is in {@link RdmaSelectorProvider}.
 *
 * @param rules         the rules, in order
 * @param fallbackToTcp whether a matching {@code rdma} rule whose address no RDMA device serves gives TCP instead
 *                      of an error
 */
record Rules(List<Rule> rules, boolean fallbackToTcp) {
    /** System property: the rules themselves, lines separated by newlines or {@code ;}. */
    static final String RULES_PROPERTY = "jrdma.nio.rules";
    /** System property: a file of rules, one a line. */
    static final String FILE_PROPERTY = "jrdma.nio.rules.file";
    /** System property: {@code error} (the default) or {@code tcp}. */
    static final String FALLBACK_PROPERTY = "jrdma.nio.fallback";
    private static final Pattern BLANKS = Pattern.compile("\\s+");
    private static final Pattern LITERAL = Pattern.compile("[0-9.]+|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    Rules {
        rules = List.copyOf(rules);
    }

    /** Whether a bind or a connect of {@code address} goes over RDMA, and by which rule: the first that matches. */
    Optional<Rule> match(Operation operation, InetSocketAddress address) {
        return rules.stream().filter(r -> r.matches(operation, address)).findFirst();
    }

    /** The rules the system properties give; none (all TCP) if neither property is set. */
    static Rules fromProperties(Properties properties) {
        String inline = properties.getProperty(RULES_PROPERTY);
        String file = properties.getProperty(FILE_PROPERTY);
        if (inline != null && file != null) {
            throw new IllegalArgumentException("set " + RULES_PROPERTY + " or " + FILE_PROPERTY + ", not both");
        }
        String fallback = properties.getProperty(FALLBACK_PROPERTY, "error").strip().toLowerCase(Locale.ROOT);
        if (!fallback.equals("error") && !fallback.equals("tcp")) {
            throw new IllegalArgumentException(FALLBACK_PROPERTY + " is '" + fallback + "': use error or tcp");
        }
        String text;
        String source;
        if (file != null) {
            try {
                text = Files.readString(Path.of(file));
            } catch (IOException e) {
                throw new UncheckedIOException(FILE_PROPERTY + ": cannot read " + file, e);
            }
            source = file;
        } else {
            text = inline == null ? "" : inline.replace(';', '\n');
            source = RULES_PROPERTY;
        }
        return parse(text, source, fallback.equals("tcp"));
    }

    /** Parses {@code text}, one rule a line; {@code source} names it in errors. */
    static Rules parse(String text, String source, boolean fallbackToTcp) {
        Objects.requireNonNull(text, "text");
        List<Rule> rules = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].replaceFirst("#.*", "").strip();
            if (!line.isEmpty()) {
                rules.add(parseLine(line, source + " line " + (i + 1)));
            }
        }
        return new Rules(rules, fallbackToTcp);
    }

    private static Rule parseLine(String line, String where) {
        String[] words = BLANKS.split(line);
        if (words.length != 4) {
            throw new IllegalArgumentException(where + ": '" + line
                    + "' is not 'rdma|tcp bind|connect ADDRESS[/PREFIX]|* PORT|LOW-HIGH|LOW-*|*'");
        }
        boolean rdma = switch (words[0]) {
            case "rdma" -> true;
            case "tcp" -> false;
            default -> throw new IllegalArgumentException(where + ": '" + words[0] + "' is neither rdma nor tcp");
        };
        Operation operation = switch (words[1]) {
            case "bind" -> Operation.BIND;
            case "connect" -> Operation.CONNECT;
            default -> throw new IllegalArgumentException(where + ": '" + words[1] + "' is neither bind nor connect");
        };
        AddressRange addresses = addresses(words[2], where);
        int[] ports = ports(words[3], where);
        return new Rule(where, line, rdma, operation, addresses, ports[0], ports[1]);
    }

    private static AddressRange addresses(String word, String where) {
        if (word.equals("*")) {
            return AddressRange.ANY;
        }
        int slash = word.indexOf('/');
        String host = slash < 0 ? word : word.substring(0, slash);
        // Literals only: a rule must not wait for (or depend on) name resolution.
        if (!LITERAL.matcher(host).matches()) {
            throw new IllegalArgumentException(where + ": '" + host + "' is not an IPv4 or IPv6 address literal");
        }
        byte[] network;
        try {
            network = InetAddress.getByName(host).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(where + ": '" + host + "' is not an IPv4 or IPv6 address literal", e);
        }
        int prefix = network.length * 8;
        if (slash >= 0) {
            prefix = number(word.substring(slash + 1), 0, network.length * 8, "prefix length", where);
        }
        return new AddressRange(network, prefix);
    }

    private static int[] ports(String word, String where) {
        if (word.equals("*")) {
            return new int[] {0, 65535};
        }
        int dash = word.indexOf('-');
        if (dash < 0) {
            int port = number(word, 0, 65535, "port", where);
            return new int[] {port, port};
        }
        int low = number(word.substring(0, dash), 0, 65535, "port", where);
        String upper = word.substring(dash + 1);
        int high = upper.equals("*") ? 65535 : number(upper, 0, 65535, "port", where);
        if (low > high) {
            throw new IllegalArgumentException(where + ": port range " + word + " is empty");
        }
        return new int[] {low, high};
    }

    private static int number(String text, int min, int max, String what, String where) {
        try {
            int n = Integer.parseInt(text);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below, with the range
        }
        throw new IllegalArgumentException(where + ": " + what + " '" + text + "' is not a number from " + min
                + " to " + max);
    }

    /** What a rule is about: the local address a socket binds to, or the remote address it connects to. */
    enum Operation {
        /** A bind, by a server socket channel or by a socket channel before it connects. */
        BIND,
        /** A connect by a socket channel that was not bound before. */
        CONNECT
    }

    /**
     * One rule.
     *
     * @param where     where it was written, for messages
     * @param text      the line as written
     * @param rdma      whether it sends what it matches over RDMA (else over TCP)
     * @param operation what it matches
     * @param addresses the addresses it matches
     * @param lowPort   the lowest port it matches
     * @param highPort  the highest port it matches
     */
    record Rule(String where, String text, boolean rdma, Operation operation, AddressRange addresses, int lowPort,
                int highPort) {
        boolean matches(Operation op, InetSocketAddress address) {
            return op == operation && address.getPort() >= lowPort && address.getPort() <= highPort
                    && addresses.contains(address.getAddress());
        }

        @Override
        public String toString() {
            return "rule '" + text + "' (" + where + ")";
        }
    }

    /**
     * A network: the addresses whose first {@code prefix} bits are {@code network}'s; {@link #ANY} holds all.
     *
     * @param network the network's address bytes (4 or 16), or empty for any address of either family
     * @param prefix  how many leading bits must match
     */
    record AddressRange(byte[] network, int prefix) {
        static final AddressRange ANY = new AddressRange(new byte[0], 0);

        AddressRange {
            network = network.clone();
        }

        boolean contains(InetAddress address) {
            if (network.length == 0) {
                return true;
            }
            byte[] bytes = address.getAddress();
            if (bytes.length != network.length) {
                return false;
            }
            for (int bit = 0; bit < prefix; bit++) {
                int mask = 0x80 >>> (bit % 8);
                if ((bytes[bit / 8] & mask) != (network[bit / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }
    }
}
