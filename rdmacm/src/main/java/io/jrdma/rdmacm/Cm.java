package io.jrdma.rdmacm;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.internal.Errno;
import io.jrdma.ibverbs.internal.Verbs;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/** Calls into librdmacm, whose functions return 0, or -1 with errno set. */
final class Cm {
    private Cm() {
    }

    static MethodHandle capturing(MemorySegment address, FunctionDescriptor descriptor) {
        return Errno.capturing(address, descriptor);
    }

    /** Calls {@code handle} (made by {@link #capturing}) and throws what errno says if it returned non-zero. */
    static void check(String function, MethodHandle handle, String detail, Object... args) throws RdmaException {
        Verbs.call(function, handle, rc -> (int) rc != 0, detail, args);
    }
}
