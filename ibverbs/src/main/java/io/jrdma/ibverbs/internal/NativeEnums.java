package io.jrdma.ibverbs.internal;

import java.util.function.ToIntFunction;

/**
 * Lookups of enum constants that stand for C enum values, by their C value. A utility rather than an interface the
 * public enums implement, so that no public type has an internal supertype.
 */
public final class NativeEnums {
    private NativeEnums() {
    }

    /** The constant of {@code values} whose C value ({@code valueOf}) is {@code value}, else {@code fallback}. */
    public static <E> E of(E[] values, ToIntFunction<? super E> valueOf, int value, E fallback) {
        for (E e : values) {
            if (valueOf.applyAsInt(e) == value) {
                return e;
            }
        }
        return fallback;
    }

    /** Fills {@code table} so that {@code table[c]} is the constant of C value {@code c}: for hot-path lookups. */
    public static <E> E[] table(E[] values, ToIntFunction<? super E> valueOf, E[] table) {
        for (E e : values) {
            int c = valueOf.applyAsInt(e);
            if (c >= 0) {
                table[c] = e;
            }
        }
        return table;
    }

    /** {@code table[value]}, or {@code fallback} when absent; allocation-free, unlike {@link #of}. */
    public static <E> E lookup(E[] table, int value, E fallback) {
        return value >= 0 && value < table.length && table[value] != null ? table[value] : fallback;
    }
}
