package io.jrdma.nio;

import io.jrdma.ibverbs.internal.Errno;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The downcall handles of the data path ({@code recv}, {@code send}, {@code readv}, {@code writev}, {@code poll})
 * as {@code static final} constants, one set per kind of socket. The JIT folds a constant handle and inlines the
 * downcall into its caller; a handle read from an instance field is no constant to it, and each transfer would pay
 * for the method handle's dispatch ({@code invokeBasic}, a lambda form, {@code linkToNative}). Each set is its own
 * class, initialized at its first use, so that only a process that makes an rsocket loads librdmacm.
 */
final class DataCalls {
    private DataCalls() {
    }

    /** The kernel's socket calls. */
    static final class Kernel {
        static final MethodHandle RECV = handle(Libc.LOOKUP, "recv", Libc.BUFFERED);
        static final MethodHandle SEND = handle(Libc.LOOKUP, "send", Libc.BUFFERED);
        static final MethodHandle READV = handle(Libc.LOOKUP, "readv", Libc.VECTORED);
        static final MethodHandle WRITEV = handle(Libc.LOOKUP, "writev", Libc.VECTORED);
        static final MethodHandle POLL = handle(Libc.LOOKUP, "poll", Libc.POLL);

        private Kernel() {
        }
    }

    /** librdmacm's rsockets calls ({@code rrecv}, ...). */
    static final class Rsockets {
        private static final SymbolLookup LOOKUP = RdmaLibrary.lookup();
        static final MethodHandle RECV = handle(LOOKUP, "rrecv", Libc.BUFFERED);
        static final MethodHandle SEND = handle(LOOKUP, "rsend", Libc.BUFFERED);
        static final MethodHandle READV = handle(LOOKUP, "rreadv", Libc.VECTORED);
        static final MethodHandle WRITEV = handle(LOOKUP, "rwritev", Libc.VECTORED);
        static final MethodHandle POLL = handle(LOOKUP, "rpoll", Libc.POLL);

        private Rsockets() {
        }
    }

    /** A handle on {@code name} of {@code shape} that captures errno. */
    static MethodHandle handle(SymbolLookup lookup, String name, FunctionDescriptor shape) {
        return Errno.capturing(lookup.findOrThrow(name), shape);
    }
}
