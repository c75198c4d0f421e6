package io.jrdma.ibverbs;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * Access rights of a memory region or window ({@code enum ibv_access_flags}). Nothing remote is allowed unless
 * asked for.
 *
 * <pre>{@code
 * MemoryRegion mr = pd.register(segment, arena, Access.LOCAL_WRITE, Access.REMOTE_READ);
 * }</pre>
 */
public enum Access {
    LOCAL_WRITE(IBV_ACCESS_LOCAL_WRITE()),
    REMOTE_WRITE(IBV_ACCESS_REMOTE_WRITE()),
    REMOTE_READ(IBV_ACCESS_REMOTE_READ()),
    REMOTE_ATOMIC(IBV_ACCESS_REMOTE_ATOMIC()),
    MW_BIND(IBV_ACCESS_MW_BIND()),
    ZERO_BASED(IBV_ACCESS_ZERO_BASED()),
    ON_DEMAND(IBV_ACCESS_ON_DEMAND()),
    HUGETLB(IBV_ACCESS_HUGETLB()),
    /** Optional: a device that cannot relax ordering ignores it (registered through {@code ibv_reg_mr_iova2}). */
    RELAXED_ORDERING(IBV_ACCESS_RELAXED_ORDERING());

    private final int mask;

    Access(int mask) {
        this.mask = mask;
    }

    /** The C bit. */
    public int mask() {
        return mask;
    }

    /** Whether the bit is in libibverbs' optional range, which the exported {@code ibv_reg_mr} would reject. */
    boolean optional() {
        return (mask & IBV_ACCESS_OPTIONAL_RANGE()) != 0;
    }

    /** {@code access} as a set (duplicates collapse). */
    static EnumSet<Access> setOf(Access... access) {
        EnumSet<Access> set = EnumSet.noneOf(Access.class);
        set.addAll(List.of(access));
        return set;
    }

    /** The C mask of {@code access}, checked: remote write and atomics need local write, as the verbs require. */
    static int maskOf(Set<Access> access) {
        if ((access.contains(REMOTE_WRITE) || access.contains(REMOTE_ATOMIC)) && !access.contains(LOCAL_WRITE)) {
            throw new IllegalArgumentException("REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too: " + access);
        }
        int m = 0;
        for (Access a : access) {
            m |= a.mask;
        }
        return m;
    }
}
