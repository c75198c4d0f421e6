package io.jrdma.netty;

import io.jrdma.ibverbs.Device;

/**
 * Whether the transport can run here, as Netty's native transports tell it ({@code Epoll}, {@code IoUring}):
 * libibverbs loads and lists at least one RDMA device. Asked once, when the class loads.
 */
public final class Rdma {
    private static final Throwable UNAVAILABILITY_CAUSE = probe();

    private Rdma() {
    }

    private static Throwable probe() {
        try {
            return Device.list().isEmpty() ? new IllegalStateException("no RDMA device is listed") : null;
        } catch (Throwable t) {
            // UnsatisfiedLinkError without rdma-core, ExceptionInInitializerError around it, or the listing's error.
            return t;
        }
    }

    /**
     * {@return whether the transport can run here: {@link #unavailabilityCause()} is null}
     */
    public static boolean isAvailable() {
        return UNAVAILABILITY_CAUSE == null;
    }

    /**
     * Throws if the transport cannot run here.
     *
     * @throws UnsatisfiedLinkError if it cannot, with {@link #unavailabilityCause()} as its cause
     */
    public static void ensureAvailability() {
        if (UNAVAILABILITY_CAUSE != null) {
            throw (UnsatisfiedLinkError) new UnsatisfiedLinkError("jrdma-netty cannot run here")
                    .initCause(UNAVAILABILITY_CAUSE);
        }
    }

    /**
     * {@return why the transport cannot run here, or null if it can: an {@link UnsatisfiedLinkError} when
     * libibverbs cannot be loaded (rdma-core is not installed), an {@link IllegalStateException} when it lists no
     * device, or the error of listing them}
     */
    public static Throwable unavailabilityCause() {
        return UNAVAILABILITY_CAUSE;
    }
}
