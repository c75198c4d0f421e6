package io.jrdma.rdmacm;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.internal.Errno;

/**
 * A connection-manager operation that ended in a failure event (address, route or connect error, unreachable,
 * rejected, ...) or in no event before its timeout. {@link #event()} is the event (null after a timeout).
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=event-exception}
 */
public final class CmEventException extends RdmaException {
    private static final long serialVersionUID = 1L;
    private final transient CmEvent event;

    CmEventException(String call, CmEvent event, String detail) {
        super(call, event.status() < 0 ? -event.status() : 0,
                event.status() < 0 ? Errno.name(-event.status()) : event.type().description(),
                event.type().description() + (event.type() == CmEventType.REJECTED ? " (" + event.rejectReason() + ")"
                        : event.status() != 0 ? " (status " + event.status() + ")" : "") + ": " + detail);
        this.event = event;
    }

    CmEventException(String call, int errno, String detail) {
        super(call, errno, Errno.name(errno), detail);
        this.event = null;
    }

    /**
     * The failure event, or null if none came in time.
     *
     * @return the event, or {@code null} after a timeout
     */
    public CmEvent event() {
        return event;
    }
}
