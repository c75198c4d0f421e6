package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import java.util.List;

/**
 * {@link MisuseScenarios} over rsockets, in a child JVM: a buffer whose memory is freed or confined to another thread
 * reaches librdmacm, which copies in user space, as a fault of the JVM unless it is refused first; a close racing a
 * bind, listen, connect or shutdown frees the rsocket under the call unless the call holds it.
 */
@RdmaDeviceTest
class NioMisuseDeviceTest {

    @Test
    void misuseIsAJavaExceptionNeverACrash(Device device) throws Exception {
        MisuseTest.check(ChildJvm.run(MisuseScenarios.class, 600, List.of(), DeviceSupport.address(device)),
                MisuseScenarios.expected(true));
    }
}
