package io.jrdma.ibverbs;

import java.io.IOException;

/**
 * A verb failed. Carries the verb's name, the {@code errno} it left and that errno's symbolic name.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=open-failure}
 */
public class RdmaException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The failed function, as {@link #verb()} returns it. */
    private final String verb;
    /** The errno it left, as {@link #errno()} returns it. */
    private final int errno;
    /** The errno's symbolic name, as {@link #errnoName()} returns it. */
    private final String errnoName;

    /**
     * A failure of {@code verb}; the message reads "{@code verb} failed: {@code errnoName} (errno {@code errno}):
     * detail".
     *
     * @param verb      the failed function, e.g. {@code ibv_reg_mr}
     * @param errno     the errno it left, or 0
     * @param errnoName the errno's symbolic name, e.g. {@code ENOMEM}
     * @param detail    what was being done, or {@code null}
     */
    public RdmaException(String verb, int errno, String errnoName, String detail) {
        super(verb + " failed: " + errnoName + " (errno " + errno + ")"
                + (detail == null || detail.isEmpty() ? "" : ": " + detail));
        this.verb = verb;
        this.errno = errno;
        this.errnoName = errnoName;
    }

    /**
     * The failed verb, e.g. {@code ibv_open_device}.
     *
     * @return the verb's C name
     */
    public String verb() {
        return verb;
    }

    /**
     * The errno value the verb reported (0 if it reported none).
     *
     * @return the errno
     */
    public int errno() {
        return errno;
    }

    /**
     * The errno's symbolic name, e.g. {@code ENODEV}.
     *
     * @return the symbolic name
     */
    public String errnoName() {
        return errnoName;
    }
}
