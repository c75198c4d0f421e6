package io.jrdma.ibverbs;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * Access rights of a memory region or window ({@code enum ibv_access_flags}). Nothing remote is allowed unless
 * asked for.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.MemorySnippets region=access}
 */
public enum Access {
    /** The local device may write the memory: receives and RDMA READ responses land in it. Required by the remote write and atomic rights. */
    LOCAL_WRITE(IBV_ACCESS_LOCAL_WRITE()),
    /** Peers may RDMA WRITE into the memory (with its rkey). */
    REMOTE_WRITE(IBV_ACCESS_REMOTE_WRITE()),
    /** Peers may RDMA READ the memory (with its rkey). */
    REMOTE_READ(IBV_ACCESS_REMOTE_READ()),
    /** Peers may run atomic operations (compare-and-swap, fetch-and-add) on the memory. */
    REMOTE_ATOMIC(IBV_ACCESS_REMOTE_ATOMIC()),
    /** Memory windows may be bound to the region. */
    MW_BIND(IBV_ACCESS_MW_BIND()),
    /** Remote addresses are offsets from the start of the region (or window), not virtual addresses. */
    ZERO_BASED(IBV_ACCESS_ZERO_BASED()),
    /** On-demand paging: pages are not pinned at registration but faulted in by the device; see {@link DeviceAttributesEx#supportsOnDemandPaging()}. */
    ON_DEMAND(IBV_ACCESS_ON_DEMAND()),
    /** With {@link #ON_DEMAND}: the memory is backed by huge pages, which the device may then map as such. */
    HUGETLB(IBV_ACCESS_HUGETLB()),
    /** Optional: a device that cannot relax ordering ignores it (registered through {@code ibv_reg_mr_iova2}). */
    RELAXED_ORDERING(IBV_ACCESS_RELAXED_ORDERING());

    private final int mask;

    Access(int mask) {
        this.mask = mask;
    }

    /**
     * The C bit.
     *
     * @return the {@code IBV_ACCESS_*} value
     */
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
