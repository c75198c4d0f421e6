package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/**
 * {@link ConcurrentConnects} over rsockets. A hang in librdmacm fails the test at its timeout rather than holding
 * the device tier up.
 */
@RdmaDeviceTest
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NioConcurrentConnectsDeviceTest {

    @Test
    void manyConnectsAtOnceFromOneSelectorEachEcho(Device device) throws Exception {
        DeviceSupport.withRdmaServer(device, ConcurrentConnects::fromOneSelector);
    }

    @Test
    void manyConnectsAtOnceFromSeveralThreadsEachEcho(Device device) throws Exception {
        DeviceSupport.withRdmaServer(device, ConcurrentConnects::fromSeveralThreads);
    }
}
