package io.jrdma.ibverbs.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** Anonymous huge-page memory (mmap with MAP_HUGETLB), unmapped when its arena closes. */
@SuppressWarnings("restricted")
public final class HugePages {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MMAP = Errno.capturing(LINKER.defaultLookup().findOrThrow("mmap"),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    private static final MethodHandle MUNMAP = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("munmap"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS_HUGETLB = 0x02 | 0x20 | 0x40000;
    private static final long MAP_FAILED = -1L;

    private HugePages() {
    }

    /**
     * Maps {@code size} bytes (a multiple of the default huge page size) of huge pages into {@code arena}.
     *
     * @throws UnsupportedOperationException when the kernel has no free huge pages (see /proc/sys/vm/nr_hugepages)
     */
    public static MemorySegment map(long size, Arena arena) {
        MemorySegment addr;
        int errno;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Errno.allocateState(call);
            addr = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, size, PROT_READ_WRITE,
                    MAP_PRIVATE_ANONYMOUS_HUGETLB, -1, 0L);
            errno = Errno.read(state);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
        if (addr.address() == MAP_FAILED) {
            throw new UnsupportedOperationException("cannot map " + size + " bytes of huge pages: " + Errno.name(errno)
                    + " (" + Errno.describe(errno) + "); reserve some in /proc/sys/vm/nr_hugepages");
        }
        return addr.reinterpret(size, arena, HugePages::unmap);
    }

    private static void unmap(MemorySegment s) {
        try {
            int rc = (int) MUNMAP.invokeExact(s, s.byteSize());
            if (rc != 0) {
                throw new IllegalStateException("munmap of huge pages at 0x" + Long.toHexString(s.address()) + " failed");
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
    }
}
