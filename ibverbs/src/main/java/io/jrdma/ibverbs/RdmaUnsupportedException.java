package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.Errno;

/**
 * The device or its provider cannot do what was asked: the verb failed with {@code EOPNOTSUPP}, or the provider has
 * no entry point for it at all. Nothing was changed; a caller that can do without the feature catches this type
 * instead of comparing errno values.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=unsupported}
 */
public final class RdmaUnsupportedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * {@code verb} failed because the device cannot do it; the message reads "{@code verb} failed: EOPNOTSUPP (errno
     * 95): detail".
     *
     * @param verb   the failed function, e.g. {@code ibv_modify_cq}
     * @param detail what the device lacks, or {@code null}
     */
    public RdmaUnsupportedException(String verb, String detail) {
        super(verb, Errno.EOPNOTSUPP, "EOPNOTSUPP", detail);
    }
}
