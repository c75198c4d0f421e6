package io.jrdma.rdmacm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Private data is bounded by what the CM messages carry, refused in Java before any native call. */
class PrivateDataBoundsTest {

    @Test
    void connectOptionsCarryAtMost56Bytes() {
        ConnectionOptions.defaults().withPrivateData(new byte[ConnectionParameters.MAX_CONNECT_DATA]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectionOptions.defaults().withPrivateData(new byte[ConnectionParameters.MAX_CONNECT_DATA + 1]));
        assertEquals(true, e.getMessage().contains("57 bytes"), e.getMessage());
    }

    @Test
    void connectionParametersCarryAtMostWhatAnAcceptCarries() {
        ConnectionParameters.defaults().withPrivateData(new byte[ConnectionParameters.MAX_ACCEPT_DATA]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectionParameters.defaults().withPrivateData(new byte[ConnectionParameters.MAX_ACCEPT_DATA + 1]));
        assertEquals(true, e.getMessage().contains("197 bytes"), e.getMessage());
    }
}
