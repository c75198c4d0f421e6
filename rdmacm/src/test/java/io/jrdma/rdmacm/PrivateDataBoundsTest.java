package io.jrdma.rdmacm;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

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
    void connectionParametersHoldWhatAnEventCarriesAndAnAcceptSendsAtMostWhatItCarries() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectionParameters.defaults().withPrivateData(new byte[ConnectionParameters.MAX_PRIVATE_DATA + 1]));
        assertEquals(true, e.getMessage().contains("256 bytes"), e.getMessage());
        ConnectionParameters fits = ConnectionParameters.defaults()
                .withPrivateData(new byte[ConnectionParameters.MAX_ACCEPT_DATA]);
        ConnectionParameters tooLong = ConnectionParameters.defaults()
                .withPrivateData(new byte[ConnectionParameters.MAX_ACCEPT_DATA + 1]);
        try (Arena arena = Arena.ofConfined()) {
            fits.toNative(arena, ConnectionParameters.MAX_ACCEPT_DATA, "an accept");
            e = assertThrows(IllegalArgumentException.class,
                    () -> tooLong.toNative(arena, ConnectionParameters.MAX_ACCEPT_DATA, "an accept"));
            assertEquals(true, e.getMessage().contains("not 197"), e.getMessage());
        }
    }
}
