package io.jrdma.nativetest.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A real dma-buf for tests: anonymous shared memory exported through the kernel's {@code /dev/udmabuf}, so that
 * dma-buf registration is tried with what GPUs hand out rather than with an ordinary file.
 */
@SuppressWarnings("restricted") // ioctl(2) on /dev/udmabuf has no Java API
final class UserDmaBuf {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MEMFD_CREATE = libc("memfd_create", JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle FTRUNCATE = libc("ftruncate", JAVA_INT, JAVA_INT, JAVA_LONG);
    private static final MethodHandle FCNTL = libc("fcntl", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle OPEN = libc("open", JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle IOCTL = libc("ioctl", JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS);
    private static final MethodHandle CLOSE = libc("close", JAVA_INT, JAVA_INT);
    private static final int MFD_ALLOW_SEALING = 2;
    private static final int F_ADD_SEALS = 1033;
    private static final int F_SEAL_SHRINK = 2;
    private static final int O_RDWR = 2;
    /** {@code _IOW('u', 0x42, struct udmabuf_create)}. */
    private static final long UDMABUF_CREATE = 0x40187542L;

    private UserDmaBuf() {
    }

    /**
     * A dma-buf file descriptor of {@code size} bytes; without {@code /dev/udmabuf}, the sealed memfd itself, which
     * a device without dma-buf support refuses just the same.
     */
    static int create(Arena arena, long size) throws Throwable {
        int memfd = (int) MEMFD_CREATE.invokeExact(arena.allocateFrom("jrdma-dmabuf"), MFD_ALLOW_SEALING);
        check(memfd, "memfd_create");
        check((int) FTRUNCATE.invokeExact(memfd, size), "ftruncate");
        check((int) FCNTL.invokeExact(memfd, F_ADD_SEALS, F_SEAL_SHRINK), "fcntl(F_ADD_SEALS)");
        int dev = (int) OPEN.invokeExact(arena.allocateFrom("/dev/udmabuf"), O_RDWR);
        if (dev < 0) {
            return memfd;
        }
        MemorySegment request = arena.allocate(24, 8);
        request.set(ValueLayout.JAVA_INT, 0, memfd);
        request.set(ValueLayout.JAVA_LONG, 16, size);
        int buf = (int) IOCTL.invokeExact(dev, UDMABUF_CREATE, request);
        close(dev);
        if (buf < 0) {
            return memfd;
        }
        close(memfd);
        return buf;
    }

    static void close(int fd) throws Throwable {
        int ignored = (int) CLOSE.invokeExact(fd);
    }

    private static void check(int rc, String call) {
        if (rc < 0) {
            throw new IllegalStateException(call + " failed");
        }
    }

    private static MethodHandle libc(String name, ValueLayout ret, ValueLayout... args) {
        return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), FunctionDescriptor.of(ret, args));
    }
}
