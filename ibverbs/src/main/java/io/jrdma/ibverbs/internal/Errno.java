package io.jrdma.ibverbs.internal;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.RdmaUnsupportedException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/** errno capture and naming for verbs that report failure through errno. */
@SuppressWarnings("restricted")
public final class Errno {
    /** Invalid argument: the same value on every Linux architecture. */
    public static final int EINVAL = 22;
    /** No such device: the same value on every Linux architecture (asm-generic). */
    public static final int ENODEV = 19;
    /** Operation not supported: the same value on every Linux architecture but alpha, mips, parisc and sparc. */
    public static final int EOPNOTSUPP = 95;
    /** Timed out: the same value on every Linux architecture but alpha, mips, parisc and sparc. */
    public static final int ETIMEDOUT = 110;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MemoryLayout STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");
    // glibc >= 2.32; older libcs get a numeric name.
    private static final MethodHandle STRERRORNAME = LINKER.defaultLookup().find("strerrorname_np")
            .map(a -> LINKER.downcallHandle(a, FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT)))
            .orElse(null);
    private static final MethodHandle STRERROR = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("strerror"),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

    private Errno() {
    }

    /**
     * A downcall handle to {@code address} whose first parameter is the errno capture segment
     * (see {@link #allocateState}); used for verbs whose failure detail is only in errno.
     */
    public static MethodHandle capturing(MemorySegment address, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(address, descriptor, CAPTURE);
    }

    public static MemorySegment allocateState(Arena arena) {
        return arena.allocate(STATE);
    }

    public static int read(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** Symbolic name of an errno value, e.g. {@code EINVAL}. */
    public static String name(int errno) {
        if (STRERRORNAME != null) {
            try {
                MemorySegment s = (MemorySegment) STRERRORNAME.invokeExact(errno);
                if (!s.equals(MemorySegment.NULL)) {
                    return s.reinterpret(64).getString(0);
                }
            } catch (Throwable t) {
                throw DataPath.rethrow(t);
            }
        }
        return "errno" + errno;
    }

    /** Human description of an errno value (strerror). */
    public static String describe(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw DataPath.rethrow(t);
        }
    }

    /** The exception for a verb that failed with {@code errno}. */
    public static RdmaException exception(String verb, int errno) {
        return exception(verb, errno, null);
    }

    /** The exception for a verb that failed with {@code errno}, with what it means here. */
    public static RdmaException exception(String verb, int errno, String detail) {
        String what = detail == null ? describe(errno) : describe(errno) + "; " + detail;
        return errno == EOPNOTSUPP ? new RdmaUnsupportedException(verb, what)
                : new RdmaException(verb, errno, name(errno), what);
    }
}
