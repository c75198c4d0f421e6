package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * The path migration state of a connected queue pair ({@code enum ibv_mig_state}): whether it may fail over to its
 * alternate path.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=qp-modify}
 */
public enum MigrationState {
    /** Migrated: on the path it has; no alternate is armed. */
    MIGRATED(IBV_MIG_MIGRATED()),
    /** Rearm: an alternate path is being loaded. */
    REARM(IBV_MIG_REARM()),
    /** Armed: the alternate path is ready to take over. */
    ARMED(IBV_MIG_ARMED());

    private final int value;

    MigrationState(int value) {
        this.value = value;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    static MigrationState of(int value) {
        return NativeEnums.of(values(), MigrationState::value, value, MIGRATED);
    }
}
