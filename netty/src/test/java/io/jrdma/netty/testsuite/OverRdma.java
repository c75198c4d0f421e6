package io.jrdma.netty.testsuite;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.BeforeEach;

import java.io.IOException;

/**
 * A test of Netty's socket test suite run over the transport on the device (a device test): each test class
 * implements this and points the suite's bootstraps and addresses at {@link RdmaPermutation}. A test that hangs
 * fails after the module's default bound ({@code junit-platform.properties}) instead of holding the tier.
 */
@RdmaDeviceTest
interface OverRdma {
    @BeforeEach
    default void onTheDevice(Device device) throws IOException {
        RdmaPermutation.use(device);
    }
}
