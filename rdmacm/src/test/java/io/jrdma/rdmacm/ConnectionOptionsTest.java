package io.jrdma.rdmacm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConnectionOptionsTest {
    @Test
    void retriesDefaultToTheConnectionManagersTimeoutAndSixRetries() {
        ConnectionOptions o = ConnectionOptions.defaults();
        assertEquals(0, o.ackTimeout());
        assertEquals(6, o.retryCount());
        ConnectionOptions quick = o.withRetries(14, 3);
        assertEquals(14, quick.ackTimeout());
        assertEquals(3, quick.retryCount());
        assertEquals(o.maxMessageSize(), quick.maxMessageSize());
    }

    @Test
    void retriesOutOfRangeAreRefusedNamingTheField() {
        ConnectionOptions o = ConnectionOptions.defaults();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withRetries(32, 6)).getMessage()
                .contains("ackTimeout"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withRetries(-1, 6)).getMessage()
                .contains("ackTimeout"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withRetries(14, 8)).getMessage()
                .contains("retryCount"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withRetries(14, -1)).getMessage()
                .contains("retryCount"));
    }
}
