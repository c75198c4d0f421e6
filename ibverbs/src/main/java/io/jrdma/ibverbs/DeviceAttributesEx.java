package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibverbs_h;

/**
 * The extended device attributes ({@code struct ibv_device_attr_ex}) from {@link Context#queryDeviceEx()}: the
 * classic ones plus on-demand paging, clock and extended capabilities.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.MemorySnippets region=on-demand-paging}
 *
 * @param base                    the classic attributes
 * @param odpGeneralCaps          {@code IBV_ODP_SUPPORT*} bits
 * @param rcOdpCaps               {@code IBV_ODP_SUPPORT_*} operations with ODP on RC
 * @param ucOdpCaps               the same on UC
 * @param udOdpCaps               the same on UD
 * @param completionTimestampMask valid bits of completion timestamps, 0 if none
 * @param hcaCoreClock            device clock in kHz, 0 if unknown
 * @param deviceCapFlagsEx        {@code IBV_DEVICE_*} bits, 64-bit
 * @param maxDeviceMemorySize     on-device memory, bytes
 * @param physPortCount           number of ports (extended count)
 */
public record DeviceAttributesEx(DeviceAttributes base, long odpGeneralCaps, int rcOdpCaps, int ucOdpCaps,
                                 int udOdpCaps, long completionTimestampMask, long hcaCoreClock, long deviceCapFlagsEx,
                                 long maxDeviceMemorySize, int physPortCount) {

    /**
     * Whether memory can be registered with {@link Access#ON_DEMAND}.
     *
     * @return whether the device reports {@code IBV_ODP_SUPPORT}
     */
    public boolean supportsOnDemandPaging() {
        return (odpGeneralCaps & ibverbs_h.IBV_ODP_SUPPORT()) != 0;
    }
}
