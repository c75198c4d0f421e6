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
}
