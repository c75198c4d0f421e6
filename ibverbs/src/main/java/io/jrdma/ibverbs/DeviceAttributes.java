package io.jrdma.ibverbs;

/**
 * What a device can do ({@code struct ibv_device_attr}), from {@link Context#queryDevice()}.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=device-attributes}
 *
 * @param firmwareVersion      firmware version string
 * @param nodeGuid             node GUID, host byte order
 * @param sysImageGuid         system image GUID, host byte order
 * @param maxMrSize            largest registrable memory region, bytes (unsigned: -1 is 2^64 - 1)
 * @param pageSizeCap          supported page sizes (bit mask)
 * @param vendorId             IEEE vendor id
 * @param vendorPartId         vendor part id
 * @param hwVersion            hardware version
 * @param maxQp                maximum number of queue pairs
 * @param maxQpWr              maximum outstanding work requests per queue
 * @param deviceCapFlags       {@code IBV_DEVICE_*} capability bits
 * @param maxSge               maximum scatter/gather entries per send or receive work request
 * @param maxSgeRd             maximum scatter/gather entries per RDMA READ
 * @param maxCq                maximum number of completion queues
 * @param maxCqe               maximum entries per completion queue
 * @param maxMr                maximum number of memory regions
 * @param maxPd                maximum number of protection domains
 * @param maxQpRdAtom          maximum outstanding RDMA READ/atomics per QP as responder
 * @param maxQpInitRdAtom      maximum outstanding RDMA READ/atomics per QP as initiator
 * @param atomicCap            atomic support ({@code enum ibv_atomic_cap})
 * @param maxMw                maximum number of memory windows
 * @param maxAh                maximum number of address handles
 * @param maxSrq               maximum number of shared receive queues
 * @param maxSrqWr             maximum work requests per shared receive queue
 * @param maxSrqSge            maximum scatter/gather entries per SRQ work request
 * @param maxPkeys             P_Key table size
 * @param physPortCount        number of physical ports (numbered from 1)
 */
public record DeviceAttributes(String firmwareVersion, long nodeGuid, long sysImageGuid, long maxMrSize,
                               long pageSizeCap, int vendorId, int vendorPartId, int hwVersion, int maxQp,
                               int maxQpWr, int deviceCapFlags, int maxSge, int maxSgeRd, int maxCq, int maxCqe,
                               int maxMr, int maxPd, int maxQpRdAtom, int maxQpInitRdAtom, int atomicCap,
                               int maxMw, int maxAh, int maxSrq, int maxSrqWr, int maxSrqSge, int maxPkeys,
                               int physPortCount) {
}
