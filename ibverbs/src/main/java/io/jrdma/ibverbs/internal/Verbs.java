package io.jrdma.ibverbs.internal;

import io.jrdma.ibverbs.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** Control-path call helpers: verbs that return NULL or a non-zero code on failure. */
public final class Verbs {
    private Verbs() {
    }

    /**
     * Calls an errno-capturing handle (see {@link Errno#capturing}) of a verb that returns a pointer, NULL on failure.
     */
    public static MemorySegment pointer(String verb, MethodHandle capturing, Object... args) throws RdmaException {
        return (MemorySegment) call(verb, capturing, r -> r.equals(MemorySegment.NULL), null, args);
    }

    /**
     * Calls an errno-capturing handle (see {@link Errno#capturing}) and returns its result, or throws what errno says
     * (with {@code detail}, if not null) when {@code failed} says the result is a failure.
     */
    public static Object call(String verb, MethodHandle capturing, Predicate<Object> failed, String detail,
                              Object... args) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Errno.allocateState(arena);
            List<Object> all = new ArrayList<>(args.length + 1);
            all.add(state);
            all.addAll(List.of(args));
            Object result;
            try {
                result = capturing.invokeWithArguments(all);
            } catch (Throwable t) {
                throw DataPath.rethrow(t);
            }
            if (failed.test(result)) {
                throw detail == null ? Errno.exception(verb, Errno.read(state))
                        : Errno.exception(verb, Errno.read(state), detail);
            }
            return result;
        }
    }

    /** For verbs that return 0 or an errno value (positive, or negated by some providers). */
    public static void check(String verb, int rc) throws RdmaException {
        if (rc != 0) {
            throw Errno.exception(verb, Math.abs(rc));
        }
    }
}
