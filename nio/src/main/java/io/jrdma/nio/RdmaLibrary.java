package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;

/**
 * librdmacm, loaded at the first use of RDMA rather than with the provider, so that a process whose channels are
 * all TCP never needs it; and why RDMA cannot be used, for {@link RdmaSelectorProvider#unavailabilityCause()}.
 */
final class RdmaLibrary {
    /** The library's name as rdma-core installs it. */
    static final String NAME = "librdmacm.so.1";

    private RdmaLibrary() {
    }

    /** librdmacm's symbols. */
    static SymbolLookup lookup() {
        if (Loaded.FAILURE != null) {
            throw Loaded.FAILURE;
        }
        return Loaded.LOOKUP;
    }

    /** Why librdmacm cannot be loaded, or null if it is. */
    static UnsatisfiedLinkError loadFailure() {
        return Loaded.FAILURE;
    }

    /**
     * Why no rsocket can be made: librdmacm cannot be loaded, or there is no RDMA device; null if one can. Asked
     * again at each call, since a device can come (a driver loaded, a Soft-RoCE link added) while the process runs.
     */
    static Throwable unavailabilityCause() {
        if (Loaded.FAILURE != null) {
            return Loaded.FAILURE;
        }
        try {
            return Device.list().isEmpty() ? new IllegalStateException("no RDMA device (" + NAME
                    + " is loaded, but the verbs library lists no device: no driver or module loaded?)") : null;
        } catch (RdmaException e) {
            return e;
        }
    }

    @SuppressWarnings("restricted")   // a library of rdma-core, whose calls the callers declare as its headers do
    private static final class Loaded {
        static final SymbolLookup LOOKUP;
        static final UnsatisfiedLinkError FAILURE;

        static {
            SymbolLookup lookup = null;
            UnsatisfiedLinkError failure = null;
            try {
                lookup = SymbolLookup.libraryLookup(NAME, Arena.global());
            } catch (IllegalArgumentException e) {
                failure = new UnsatisfiedLinkError(NAME + " cannot be loaded (is rdma-core's librdmacm installed?): "
                        + e.getMessage());
                failure.initCause(e);
            }
            LOOKUP = lookup;
            FAILURE = failure;
        }
    }
}
