package io.jrdma.nio;

import org.junit.jupiter.api.Test;

import java.net.StandardSocketOptions;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BufferSizeTest {

    @Test
    void sizesAreBytesOrKibibytesOrMebibytes() {
        assertEquals(16384, BufferSize.parse("16384"));
        assertEquals(16384, BufferSize.parse(" 16K "));
        assertEquals(1 << 20, BufferSize.parse("1m"));
        assertEquals(BufferSize.DEFAULT, BufferSize.fromProperties(new Properties()));
        Properties set = new Properties();
        set.setProperty(BufferSize.PROPERTY, "64k");
        assertEquals(65536, BufferSize.fromProperties(set));
    }

    @Test
    void whatIsNoBufferSizeIsRefusedNamingTheProperty() {
        for (String bad : new String[] {"", "k", "lots", "-4k", "0", "2048", "4097", "2g", "1025m", "99999999999m"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BufferSize.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("jrdma.nio.bufferSize is '" + bad + "'"), e.getMessage());
        }
    }

    @Test
    void theProviderRefusesABadSizeBeforeAnySocketExists() {
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("rdma connect 10.0.2.15 *", false);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> provider.withBufferSize(1000));
        assertEquals("buffer size 1000: a buffer size is a multiple of 4 KiB from 4 KiB to 1 GiB (the memory the "
                + "device pins per buffer)", e.getMessage());
        assertTrue(provider.withBufferSize(8192).toString().endsWith(" bufferSize=8192"));
    }

    @Test
    void rsocketsGetHalfOfTheSizeAsTheyDoubleItAndTcpSocketsNothing() {
        assertEquals(Map.of(StandardSocketOptions.SO_SNDBUF, 4096, StandardSocketOptions.SO_RCVBUF, 4096),
                BufferSize.rsocketOptions(8192));
        assertEquals(Map.of(), BufferSize.rsocketOptions(BufferSize.DEFAULT));
        Router router = new Router(Rules.parse("", "test", false), 8192, ConnectService.Mode.OFF);
        assertEquals(Map.of(), router.presets(Transport.TCP));
        assertEquals(BufferSize.rsocketOptions(8192), router.presets(Transport.rdma()));
    }
}
