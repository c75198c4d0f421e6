package io.jrdma.ibverbs;

import io.jrdma.bindings.ibverbs.ibv_device;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.internal.DataPath;
import io.jrdma.ibverbs.internal.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * An RDMA device as listed by {@code ibv_get_device_list}: a snapshot, safe to keep after the list is gone.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=list}
 *
 * @param name          the device name, e.g. {@code mlx5_0} or {@code rxe0}
 * @param guid          the node GUID in host byte order (as {@code ibv_devices} prints it)
 * @param nodeType      the node type
 * @param transportType the transport
 */
@SuppressWarnings("restricted")
public record Device(String name, long guid, NodeType nodeType, TransportType transportType) {

    private static final MethodHandle GET_DEVICE_LIST = Errno.capturing(
            ibverbs_h.ibv_get_device_list$address(), ibverbs_h.ibv_get_device_list$descriptor());

    /**
     * Lists the RDMA devices of this machine.
     *
     * @return the devices, in the order libibverbs lists them; empty when there is none
     * @throws RdmaException if the list cannot be read, e.g. {@code ENOSYS} when the kernel has no RDMA support
     */
    public static List<Device> list() throws RdmaException {
        return withDeviceList(devices -> {
            List<Device> result = new ArrayList<>(devices.size());
            for (MemorySegment dev : devices) {
                result.add(of(dev));
            }
            return List.copyOf(result);
        });
    }

    /**
     * Runs {@code action} over the {@code struct ibv_device *} entries of a fresh device list and frees the
     * list afterwards; the pointers must not escape {@code action}.
     */
    static <T> T withDeviceList(Function<List<MemorySegment>, T> action) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Errno.allocateState(arena);
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment array;
            try {
                array = (MemorySegment) GET_DEVICE_LIST.invokeExact(state, count);
            } catch (Throwable t) {
                throw DataPath.rethrow(t);
            }
            if (array.equals(MemorySegment.NULL)) {
                throw Errno.exception("ibv_get_device_list", Errno.read(state));
            }
            try {
                int n = count.get(ValueLayout.JAVA_INT, 0);
                MemorySegment entries = array.reinterpret(ValueLayout.ADDRESS.byteSize() * n);
                List<MemorySegment> devices = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    devices.add(entries.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(ibv_device.sizeof()));
                }
                return action.apply(devices);
            } finally {
                ibverbs_h.ibv_free_device_list(array);
            }
        }
    }

    static Device of(MemorySegment dev) {
        String name = ibverbs_h.ibv_get_device_name(dev).reinterpret(ibverbs_h.IBV_SYSFS_NAME_MAX()).getString(0);
        long guid = Long.reverseBytes(ibverbs_h.ibv_get_device_guid(dev));
        return new Device(name, guid, NodeType.of(ibv_device.node_type(dev)),
                TransportType.of(ibv_device.transport_type(dev)));
    }
}
