package io.jrdma.nio;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RulesTest {
    private static final String RULES = """
            # servers on the RDMA interface
            rdma bind    10.0.2.15      *
            tcp  connect 10.0.2.99      *          # one host keeps TCP
            rdma connect 10.0.2.0/24    5000-6000
            rdma connect fd00::/8       7000
            """;

    private static Optional<Rules.Rule> match(Rules.Operation operation, String host, int port) {
        return Rules.parse(RULES, "test", false).match(operation, new InetSocketAddress(host, port));
    }

    @Test
    void theFirstMatchingRuleDecides() {
        assertTrue(match(Rules.Operation.BIND, "10.0.2.15", 1).orElseThrow().rdma());
        assertFalse(match(Rules.Operation.CONNECT, "10.0.2.99", 5000).orElseThrow().rdma());
        Rules.Rule subnet = match(Rules.Operation.CONNECT, "10.0.2.7", 5000).orElseThrow();
        assertTrue(subnet.rdma());
        assertEquals("rule 'rdma connect 10.0.2.0/24    5000-6000' (test line 4)", subnet.toString());
    }

    @Test
    void portsPrefixesOperationsAndFamiliesBoundAMatch() {
        assertTrue(match(Rules.Operation.CONNECT, "10.0.2.7", 6000).isPresent());
        assertTrue(match(Rules.Operation.CONNECT, "10.0.2.7", 6001).isEmpty());
        assertTrue(match(Rules.Operation.CONNECT, "10.0.3.7", 5000).isEmpty());
        assertTrue(match(Rules.Operation.CONNECT, "10.0.2.15", 4999).isEmpty(), "a bind rule is no connect rule");
        assertTrue(match(Rules.Operation.BIND, "0.0.0.0", 80).isEmpty(), "the wildcard matches only *");
        assertTrue(match(Rules.Operation.CONNECT, "fd12::1", 7000).orElseThrow().rdma());
        assertTrue(match(Rules.Operation.CONNECT, "fe80::1", 7000).isEmpty());
        assertTrue(match(Rules.Operation.CONNECT, "::ffff:10.0.2.7", 5000).isPresent(),
                "a mapped IPv4 address is the IPv4 address");
    }

    @Test
    void aStarMatchesEveryAddressOfEitherFamily() {
        Rules rules = Rules.parse("rdma bind * 4000-*", "test", false);
        assertTrue(rules.match(Rules.Operation.BIND, new InetSocketAddress("0.0.0.0", 4000)).isPresent());
        assertTrue(rules.match(Rules.Operation.BIND, new InetSocketAddress("::1", 65535)).isPresent());
        assertTrue(rules.match(Rules.Operation.BIND, new InetSocketAddress("::1", 3999)).isEmpty());
    }

    @Test
    void badLinesAreNamedWithTheirLineNumber() {
        assertMessage("test line 2: 'rdma bind 10.0.2.15' is not 'rdma|tcp bind|connect ADDRESS[/PREFIX]|* "
                + "PORT|LOW-HIGH|LOW-*|*'", "# ok\nrdma bind 10.0.2.15");
        assertMessage("test line 1: 'sdp' is neither rdma nor tcp", "sdp bind * *");
        assertMessage("test line 1: 'listen' is neither bind nor connect", "rdma listen * *");
        assertMessage("test line 1: 'example.com' is not an IPv4 or IPv6 address literal", "rdma bind example.com *");
        assertMessage("test line 1: prefix length '33' is not a number from 0 to 32", "rdma bind 10.0.0.0/33 *");
        assertMessage("test line 1: port '65536' is not a number from 0 to 65535", "rdma bind * 65536");
        assertMessage("test line 1: port 'x' is not a number from 0 to 65535", "rdma bind * x-9");
        assertMessage("test line 1: port range 9-8 is empty", "rdma bind * 9-8");
    }

    private static void assertMessage(String message, String rules) {
        assertEquals(message, assertThrows(IllegalArgumentException.class,
                () -> Rules.parse(rules, "test", false)).getMessage());
    }

    @Test
    void propertiesGiveTheRulesInlineOrFromAFileAndTheFallback(@TempDir Path dir) throws IOException {
        Properties inline = new Properties();
        inline.setProperty(Rules.RULES_PROPERTY, "rdma bind * *; tcp connect * *");
        inline.setProperty(Rules.FALLBACK_PROPERTY, "TCP");
        Rules fromInline = Rules.fromProperties(inline);
        assertEquals(2, fromInline.rules().size());
        assertTrue(fromInline.fallbackToTcp());

        Path file = Files.writeString(dir.resolve("rules"), RULES);
        Properties fromFile = new Properties();
        fromFile.setProperty(Rules.FILE_PROPERTY, file.toString());
        Rules rules = Rules.fromProperties(fromFile);
        assertEquals(4, rules.rules().size());
        assertFalse(rules.fallbackToTcp());
        assertTrue(rules.rules().getFirst().where().startsWith(file + " line 2"));

        assertTrue(Rules.fromProperties(new Properties()).rules().isEmpty(), "no rules: everything is TCP");
    }

    @Test
    void conflictingOrUnknownPropertiesAreRefused() {
        Properties both = new Properties();
        both.setProperty(Rules.RULES_PROPERTY, "");
        both.setProperty(Rules.FILE_PROPERTY, "rules");
        assertEquals("set jrdma.nio.rules or jrdma.nio.rules.file, not both",
                assertThrows(IllegalArgumentException.class, () -> Rules.fromProperties(both)).getMessage());
        Properties fallback = new Properties();
        fallback.setProperty(Rules.FALLBACK_PROPERTY, "sdp");
        assertEquals("jrdma.nio.fallback is 'sdp': use error or tcp",
                assertThrows(IllegalArgumentException.class, () -> Rules.fromProperties(fallback)).getMessage());
        Properties missing = new Properties();
        missing.setProperty(Rules.FILE_PROPERTY, "/nonexistent/rules");
        assertThrows(java.io.UncheckedIOException.class, () -> Rules.fromProperties(missing));
    }
}
