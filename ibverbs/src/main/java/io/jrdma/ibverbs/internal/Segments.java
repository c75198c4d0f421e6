package io.jrdma.ibverbs.internal;

import java.lang.foreign.MemorySegment;

/** Checks on memory that goes to C by address, where the linker's own checks of a segment argument do not reach. */
public final class Segments {
    private Segments() {
    }

    /**
     * {@code segment}, if this thread may hand its memory to C now: the checks the linker makes of a segment argument,
     * with the same exceptions, before any native call.
     *
     * @param segment the memory
     * @param what    what the memory is, for the messages
     * @return {@code segment}
     * @throws IllegalStateException if its arena is closed (the memory is freed)
     * @throws WrongThreadException  if it belongs to another thread's confined arena
     */
    public static MemorySegment usable(MemorySegment segment, String what) {
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException(what + ": its arena is closed, so its memory is freed");
        }
        if (!segment.isAccessibleBy(Thread.currentThread())) {
            throw new WrongThreadException(what + " belongs to another thread's confined arena");
        }
        return segment;
    }
}
