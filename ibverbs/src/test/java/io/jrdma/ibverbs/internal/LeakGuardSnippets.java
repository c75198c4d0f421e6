package io.jrdma.ibverbs.internal;

import java.lang.foreign.MemorySegment;

/** A root object watched by a leak guard, as a device context is; compiled so that the Javadoc's example matches. */
final class LeakGuardSnippets {
    private static final System.Logger LOG = System.getLogger(LeakGuardSnippets.class.getName());

    private LeakGuardSnippets() {
    }

    /** A root object with a native handle. */
    static final class Root {
        private final ResourceGuard guard = new ResourceGuard(this, this::destroy);
        private final MemorySegment handle;
        private final LeakGuard leakGuard;

        // @start region="watch"
        Root(MemorySegment handle) {
            this.handle = handle;
            // The release refers to the handle, never to this: else this would never become unreachable.
            leakGuard = LeakGuard.watch(this, LOG, toString(), guard.ledger(), guard.creationSite(),
                    () -> destroyNative(handle));
        }

        private void destroy() {   // run by guard.close()
            destroyNative(handle);
            leakGuard.disarm();    // closed properly, nothing to report
        }
        // @end
    }

    private static void destroyNative(MemorySegment handle) {
    }
}
