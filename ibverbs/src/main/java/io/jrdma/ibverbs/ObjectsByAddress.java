package io.jrdma.ibverbs;

import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Native address → the Java object it backs, so that events naming a native object (async, completion) name the
 * Java one. Held weakly: an object dropped without close is still found unreachable (and reported as leaked).
 */
final class ObjectsByAddress<T> {
    private final Map<Long, WeakReference<T>> objects = new ConcurrentHashMap<>();

    void put(MemorySegment nativeObject, T javaObject) {
        objects.put(nativeObject.address(), new WeakReference<>(javaObject));
    }

    /** The Java object at {@code address}, or null if unknown or gone. */
    T get(long address) {
        WeakReference<T> ref = objects.get(address);
        return ref == null ? null : ref.get();
    }

    /**
     * Forgets {@code javaObject} ({@code null}: the object is gone, the call of a leak's cleanup) as the object at
     * {@code nativeObject}'s address, only if the entry names it or an object that is gone. Objects are forgotten
     * after their native destroy, when another thread's new object may already live at the same address, under its
     * own entry: removing by address alone would make its events unknown.
     */
    void remove(MemorySegment nativeObject, Object javaObject) {
        objects.computeIfPresent(nativeObject.address(), (a, ref) -> {
            T known = ref.get();
            return known == null || known == javaObject ? null : ref;
        });
    }
}
