package io.jrdma.nativetest.tool;

import io.jrdma.examples.Atomics;
import io.jrdma.examples.CmEcho;
import io.jrdma.examples.DeviceList;
import io.jrdma.examples.RcPingPong;
import io.jrdma.examples.RdmaWriteRead;
import io.jrdma.ibverbs.Context;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.DeviceSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** Each example of examples/ runs its main on the device as docs/guide.md says, and succeeds: they must not rot. */
@RdmaDeviceTest
class ExamplesDeviceTest {

    @Test
    void deviceList() {
        run(() -> DeviceList.main(new String[0]));
    }

    @Test
    void rcPingPong(Context ctx) {
        run(() -> RcPingPong.main(new String[] {ctx.device().name()}));
    }

    @Test
    void cmEcho(Context ctx) throws Exception {
        String address = DeviceSupport.ipAddress(ctx).getHostAddress();
        run(() -> CmEcho.main(new String[] {address}));
    }

    @Test
    void rdmaWriteRead(Context ctx) throws Exception {
        String address = DeviceSupport.ipAddress(ctx).getHostAddress();
        run(() -> RdmaWriteRead.main(new String[] {address}));
    }

    @Test
    void atomics(Context ctx) throws Exception {
        String address = DeviceSupport.ipAddress(ctx).getHostAddress();
        run(() -> Atomics.main(new String[] {address}));
    }

    /** An example fails by throwing; one that hangs fails here too. */
    private static void run(Executable main) {
        assertTimeoutPreemptively(Duration.ofSeconds(120), main);
    }
}
