package io.jrdma.nio;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
