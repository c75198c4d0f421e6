package io.jrdma.nativetest.verbs;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.DeviceAttributes;
import io.jrdma.ibverbs.DeviceAttributesEx;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Extended device attributes, the P_Key table, and features behind capability checks. */
@RdmaDeviceTest
class CapabilitiesDeviceTest {

    @Test
    void theExtendedQueryAgreesWithTheClassicOne(Context ctx) throws Exception {
        DeviceAttributes classic = ctx.queryDevice();
        DeviceAttributesEx ex = ctx.queryDeviceEx();
        assertEquals(classic, ex.base());
        assertEquals(classic.physPortCount(), ex.physPortCount());
        assertEquals(classic.deviceCapFlags() & 0xffffffffL, ex.deviceCapFlagsEx() & 0xffffffffL,
                "the low 32 bits of the extended flags are the classic flags");
    }

    @Test
    void theDefaultPkeyIsInTheTable(Context ctx) throws Exception {
        assertTrue(ctx.queryPort(1).pkeyTableLength() > 0);
        assertEquals(0xffff, ctx.queryPkey(1, 0), "index 0 holds the default full-membership P_Key");
        assertThrows(IllegalArgumentException.class, () -> ctx.queryPkey(1, -1));
    }

    @Test
    void onDemandPagingWorksOrIsRefusedClearly(Context ctx) throws Exception {
        try (ProtectionDomain pd = ctx.allocateProtectionDomain()) {
            if (ctx.queryDeviceEx().supportsOnDemandPaging()) {
                try (MemoryRegion mr = pd.allocate(1 << 20, Access.LOCAL_WRITE, Access.ON_DEMAND)) {
                    assertTrue(mr.access().contains(Access.ON_DEMAND));
                }
            } else {
                UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                        () -> pd.allocate(1 << 20, Access.LOCAL_WRITE, Access.ON_DEMAND));
                assertTrue(e.getMessage().contains("cannot do on-demand paging"), e.getMessage());
            }
        }
    }
}
