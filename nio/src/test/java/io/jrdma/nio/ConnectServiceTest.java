package io.jrdma.nio;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConnectServiceTest {
    private static final String MAPPED = "7f3c1a2b4000-7f3c1a2b9000 r-xp 00004000 00:1f 1835012                    ";

    @Test
    void theReleaseIsReadOffTheMappedLibrarysFileName() {
        assertEquals(44, ConnectService.release(List.of(MAPPED + "/usr/lib/x86_64-linux-gnu/libc.so.6",
                MAPPED + "/usr/lib/x86_64-linux-gnu/librdmacm.so.1.3.44.0")));
        assertEquals(53, ConnectService.release(List.of(MAPPED + "/usr/lib64/librdmacm.so.1.3.53.0")));
        assertEquals(64, ConnectService.release(List.of(MAPPED + "/opt/rdma-core/build/lib/librdmacm.so.1.3.64.0")));
    }

    @Test
    void aLibraryNamedOtherwiseOrNoneIsAnUnknownRelease() {
        assertEquals(-1, ConnectService.release(List.of()));
        assertEquals(-1, ConnectService.release(List.of(MAPPED + "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0")));
        assertEquals(-1, ConnectService.release(List.of(MAPPED + "/home/me/lib/librdmacm.so.1")));
        assertEquals(-1, ConnectService.release(List.of(MAPPED + "/usr/lib/librdmacm.so.1.3.44.0 (deleted)")));
    }

    @Test
    void theWorkaroundIsAutoUnlessThePropertySaysOnOrOff() {
        assertEquals(ConnectService.Mode.AUTO, mode(null));
        assertEquals(ConnectService.Mode.AUTO, mode("auto"));
        assertEquals(ConnectService.Mode.ON, mode("on"));
        assertEquals(ConnectService.Mode.OFF, mode("OFF"));
    }

    @Test
    void aWorkaroundOfAnotherNameIsRefusedNamingTheProperty() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> mode("yes"));
        assertTrue(e.getMessage().contains(ConnectService.PROPERTY) && e.getMessage().contains("\"yes\""),
                e.getMessage());
        System.setProperty(ConnectService.PROPERTY, "yes");
        try {
            assertThrows(IllegalArgumentException.class, () -> RdmaSelectorProvider.withRules("", false));
        } finally {
            System.clearProperty(ConnectService.PROPERTY);
        }
    }

    private static ConnectService.Mode mode(String value) {
        Properties properties = new Properties();
        if (value != null) {
            properties.setProperty(ConnectService.PROPERTY, value);
        }
        return ConnectService.Mode.fromProperties(properties);
    }
}
