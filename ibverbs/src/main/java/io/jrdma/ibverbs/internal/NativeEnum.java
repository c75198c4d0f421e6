package io.jrdma.ibverbs.internal;

/** An enum constant that stands for a C enum value. */
public interface NativeEnum {
    /** The C value. */
    int value();

    /** The constant of {@code values} whose C value is {@code value}, else {@code fallback}. */
    static <E extends NativeEnum> E of(E[] values, int value, E fallback) {
        for (E e : values) {
            if (e.value() == value) {
                return e;
            }
        }
        return fallback;
    }

    /** Fills {@code table} so that {@code table[c]} is the constant of C value {@code c}: for hot-path lookups. */
    static <E extends NativeEnum> E[] table(E[] values, E[] table) {
        for (E e : values) {
            if (e.value() >= 0) {
                table[e.value()] = e;
            }
        }
        return table;
    }

    /** {@code table[value]}, or {@code fallback} when absent; allocation-free, unlike {@link #of}. */
    static <E extends NativeEnum> E lookup(E[] table, int value, E fallback) {
        return value >= 0 && value < table.length && table[value] != null ? table[value] : fallback;
    }
}
