package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The provider with and without rdma-core: here, with a device, RDMA is available; in a child JVM whose librdmacm
 * and libibverbs files are covered by {@code /dev/null} (a bind mount in a mount namespace of its own, so the
 * loader finds them and cannot load them), RDMA is unavailable because of librdmacm, an {@code rdma} rule's bind is
 * refused naming it, and TCP channels still echo ({@link TcpOnlyApp}).
 */
@RdmaDeviceTest
class NioWithoutRdmaCoreDeviceTest {
    private static final Pattern RDMA_CORE_LIBRARY = Pattern.compile("\\s(/\\S*/lib(rdmacm|ibverbs)\\.so\\S*)$");

    @Test
    void rdmaIsAvailableWhereADeviceIs(Device device) {
        assertNull(RdmaSelectorProvider.unavailabilityCause());
        assertTrue(RdmaSelectorProvider.isAvailable());
    }

    @Test
    void withoutLibrdmacmTcpChannelsWorkAndRdmaIsUnavailableNamingIt(Device device) throws Exception {
        assertTrue(RdmaSelectorProvider.isAvailable(), "which loads librdmacm here");
        List<String> hidden = rdmaCoreLibraries();
        assertEquals(2, hidden.size(), "librdmacm and libibverbs are mapped here: " + hidden);
        // unshare's own user namespace lets it mount without being root; each mount covers one library's file.
        List<String> launcher = new ArrayList<>(List.of("unshare", "--user", "--map-root-user", "--mount", "--",
                "sh", "-c", "mount --bind /dev/null \"$1\" && mount --bind /dev/null \"$2\" && shift 2 && exec \"$@\"",
                "sh"));
        launcher.addAll(hidden);
        ChildJvm child = ChildJvm.run(launcher, TcpOnlyApp.class, 120, List.of("-Djava.nio.channels.spi.SelectorProvider="
                + RdmaSelectorProvider.class.getName()), "127.0.0.1");
        String output = child.output();
        assertTrue(child.endedNormally(), output);
        assertTrue(output.contains("available false\n"), output);
        assertTrue(output.contains("cause java.lang.UnsatisfiedLinkError: " + RdmaLibrary.NAME + " cannot be loaded"),
                output);
        assertTrue(output.contains("refused rule 'rdma bind 127.0.0.1 *' (rules line 1) sends the bind /127.0.0.1:0 "
                + "over RDMA, but " + RdmaLibrary.NAME + " cannot be loaded"), output);
        assertTrue(output.contains("provider " + RdmaSelectorProvider.class.getName()), output);
        assertTrue(output.endsWith("echoes whole\n"), output);
    }

    /** The files of librdmacm and libibverbs this JVM mapped (the provider loaded them), as the loader found them. */
    private static List<String> rdmaCoreLibraries() throws IOException {
        List<String> files = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            Matcher m = RDMA_CORE_LIBRARY.matcher(line);
            if (m.find() && !files.contains(m.group(1))) {
                files.add(m.group(1));
            }
        }
        return files;
    }
}
