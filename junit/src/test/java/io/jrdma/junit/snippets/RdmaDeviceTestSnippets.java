package io.jrdma.junit.snippets;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.PortState;
import io.jrdma.junit.RdmaDeviceExtension;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Tests on a real device. Never run: the nested classes are examples only. */
final class RdmaDeviceTestSnippets {

    // @start region="annotation"
    @RdmaDeviceTest
    static class PortTest {
        @Test
        void portIsActive(Context ctx) throws Exception {   // opened before the test, closed after it
            assertEquals(PortState.ACTIVE, ctx.queryPort(1).state());
        }
    }
    // @end

    // @start region="extension"
    @ExtendWith(RdmaDeviceExtension.class)
    @Tag("device")
    static class MyTest {
        @Test
        void t(Context ctx) {
            // ...
        }
    }
    // @end
}
