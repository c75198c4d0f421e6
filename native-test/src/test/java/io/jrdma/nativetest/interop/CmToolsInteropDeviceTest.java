package io.jrdma.nativetest.interop;

import io.jrdma.ibverbs.Context;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.ToolRun;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;

import static io.jrdma.nativetest.support.DeviceSupport.ipAddress;

/** {@link CmToolExchanges} on one device: the Java peers and the C programs side by side. */
@RdmaDeviceTest
class CmToolsInteropDeviceTest {
    private static CmToolExchanges on(Context ctx) throws IOException {
        InetAddress ip = ipAddress(ctx);
        return new CmToolExchanges(ip, ip, ToolRun::start, 18711);
    }

    @Test
    void cmatoseJavaServerAndCClient(Context ctx) throws Exception {
        on(ctx).cmatoseJavaServerAndCClient();
    }

    @Test
    void cmatoseCServerAndJavaClient(Context ctx) throws Exception {
        on(ctx).cmatoseCServerAndJavaClient();
    }

    @Test
    void udaddyJavaServerAndCClient(Context ctx) throws Exception {
        on(ctx).udaddyJavaServerAndCClient();
    }

    @Test
    void udaddyCServerAndJavaClient(Context ctx) throws Exception {
        on(ctx).udaddyCServerAndJavaClient();
    }

    @Test
    void mckeyJavaReceiverAndCSender(Context ctx) throws Exception {
        on(ctx).mckeyJavaReceiverAndCSender(InetAddress.getByName("239.18.7.1"));
    }

    @Test
    void mckeyCReceiverAndJavaSender(Context ctx) throws Exception {
        on(ctx).mckeyCReceiverAndJavaSender(InetAddress.getByName("239.18.7.2"));
    }

    @Test
    void rdmaServerAndJavaClient(Context ctx) throws Exception {
        on(ctx).rdmaServerAndJavaClient();
    }

    @Test
    void javaServerAndRdmaClient(Context ctx) throws Exception {
        on(ctx).javaServerAndRdmaClient();
    }
}
